/**
 * Seeds users straight into the embedded log, as the create-user command writes them, many
 * thousand per transaction: the HTTP API hashes each password with scrypt, which would take a
 * day for a million users on two cores.
 *
 * What the command (src/central/commands/create-user.command.ts) appends for one user, and
 * what this appends too: `UsernameReserved` as the first event of the stream
 * `username-<tenant>.<username lower-cased>`, then `UserCreated` as the first event of
 * `user-<tenant>.<random UUID>`, both with expected revision `no_stream`, metadata in the same
 * order (tenant, actor, correlation id, time, schema version). The one difference: every user
 * carries the same precomputed scrypt hash (a real one, so sign-in would work) instead of a
 * hash of their own; nothing the benchmark reads depends on it.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { allProjections } from '../projections/index.js';
import { streams } from '../src/domain/shared/stream-names.js';
import type { UserEvent } from '../src/domain/user/user.events.js';
import { hashPassword } from '../src/infrastructure/crypto/hashing.js';
import type { EventData } from '../src/infrastructure/event-store/event-store.port.js';
import { SqliteEventStore } from '../src/infrastructure/event-store/sqlite-event-store.js';
import { ProjectionRunner } from '../src/infrastructure/read-store/projection-runner.js';
import { SqliteReadStore } from '../src/infrastructure/read-store/sqlite-read-store.js';

/** Users per round of appends: two single-event appends each, all in flight together, so group commit writes them in few transactions. */
const ROUND = 2_000;

export const SEED_PASSWORD = 'a seeded password for the bench';

/** The seeded user number `i`: username, e-mail address and name. */
export function seededUser(i: number): { username: string; email: string; name: string } {
  return { username: `user${i}`, email: `user${i}@bench.example`, name: `User ${i}` };
}

export interface SeedResult {
  seconds: number;
  events: number;
  /** Up to `sample` user ids with their number, spread over the whole range. */
  sample: { id: string; n: number }[];
}

function event<T extends UserEvent['type']>(type: T, data: Extract<UserEvent, { type: T }>['data'], tenantId: string, now: string): EventData {
  return { id: randomUUID(), type, data, metadata: { tenantId, actor: 'client:admin', correlationId: randomUUID(), occurredAt: now, schemaVersion: 1 } };
}

export async function seedUsers(file: string, tenantId: string, count: number, sampleSize: number, progress: (line: string) => void): Promise<SeedResult> {
  const passwordHash = await hashPassword(SEED_PASSWORD);
  const store = new SqliteEventStore(file);
  const every = Math.max(1, Math.floor(count / sampleSize));
  const sample: { id: string; n: number }[] = [];
  const started = performance.now();
  let nextReport = 0.1;
  try {
    for (let first = 0; first < count; first += ROUND) {
      const now = new Date().toISOString();
      const appends: Promise<unknown>[] = [];
      for (let i = first; i < Math.min(count, first + ROUND); i++) {
        const { username, email, name } = seededUser(i);
        const userId = randomUUID();
        if (i % every === 0 && sample.length < sampleSize) sample.push({ id: userId, n: i });
        appends.push(store.append(streams.usernameReservation(tenantId, username), [event('UsernameReserved', { tenantId, username, userId }, tenantId, now)], 'no_stream'));
        const claims = { email, email_verified: true, name };
        appends.push(store.append(streams.user(tenantId, userId), [event('UserCreated', { tenantId, userId, username, passwordHash, claims, createdAt: now }, tenantId, now)], 'no_stream'));
      }
      await Promise.all(appends);
      const done = Math.min(count, first + ROUND);
      if (done / count >= nextReport) {
        progress(`  seeded ${done.toLocaleString('en-US')} / ${count.toLocaleString('en-US')} users (${((performance.now() - started) / 1000).toFixed(1)} s)`);
        nextReport += 0.1;
      }
    }
  } finally {
    await store.close();
  }
  return { seconds: (performance.now() - started) / 1000, events: 2 * count, sample };
}

/**
 * Brings every view up to the head of the log with the server's own projection runner and
 * projections (what the server does at start for the events it has not seen), and times it.
 */
export async function catchUpViews(file: string): Promise<{ seconds: number; events: number }> {
  const events = new SqliteEventStore(file);
  const reads = new SqliteReadStore(file);
  const started = performance.now();
  try {
    const runner = new ProjectionRunner(events, reads, allProjections);
    await runner.prepare();
    const count = await runner.catchUp();
    return { seconds: (performance.now() - started) / 1000, events: count };
  } finally {
    await reads.close();
    await events.close();
  }
}
