import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Projection } from '../../../projections/projection.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import { SqliteEventStore } from '../event-store/sqlite-event-store.js';
import { CachingReadStore } from './caching-read-store.js';
import { ProjectionLeadership } from './projection-leadership.js';
import { ProjectionRunner } from './projection-runner.js';
import { SqliteLeases } from './sqlite-leases.js';
import { SqliteReadStore } from './sqlite-read-store.js';
import { ViewSync } from './view-sync.js';

const TTL = 15_000;

interface Role {
  name: string;
  grants: string[];
}

/** A view of role documents, cached like the server's hot views. */
const roles: Projection<Role> = {
  view: 'roles_test',
  version: 1,
  eventTypes: ['RoleGranted'],
  indexes: [],
  documentId: (e) => e.data.role as string,
  apply: (doc, e) => ({ name: e.data.role, grants: [...(doc?.grants ?? []), e.data.permission] }),
};

/** One server process over the shared stores: its own cache, runner, catch-up and lease round. */
function processOver(events: SqliteEventStore, inner: SqliteReadStore, leases: SqliteLeases, now: () => number) {
  const cache = new CachingReadStore(inner, [roles.view], now);
  const runner = new ProjectionRunner(events, cache, [roles]);
  const sync = new ViewSync(cache, now, 0);
  runner.reach = (views, position, deadline) => sync.reach(views, position, deadline);
  const leadership = new ProjectionLeadership(leases, runner, sync, now, TTL);
  return { cache, runner, sync, leadership };
}

describe('one projection runner per database, view caches kept fresh across processes (two processes over one SQLite file)', () => {
  let events: SqliteEventStore;
  let inner: SqliteReadStore;
  let leases: SqliteLeases;
  let clock: number;
  let a: ReturnType<typeof processOver>;
  let b: ReturnType<typeof processOver>;

  beforeEach(async () => {
    const file = join(tempDir('leadership-'), 'authserver.db');
    events = new SqliteEventStore(file);
    inner = new SqliteReadStore(file);
    leases = new SqliteLeases(file);
    clock = 1_700_000_000_000;
    a = processOver(events, inner, leases, () => clock);
    b = processOver(events, inner, leases, () => clock);
    // As `start` does, without its timer: the test plays each round.
    for (const p of [a, b]) await p.sync.follow();
    await a.leadership.tick();
    await b.leadership.tick();
  });

  afterEach(async () => {
    await a.leadership.stop();
    await b.leadership.stop();
    await leases.close();
    await inner.close();
    await events.close();
  });

  async function grant(role: string, permission: string): Promise<number> {
    const result = await events.append(`role-${role}`, [{ id: randomUUID(), type: 'RoleGranted', data: { role, permission }, metadata: { actor: 'admin', correlationId: randomUUID(), occurredAt: new Date(clock).toISOString(), schemaVersion: 1 } }], 'any');
    return result.position;
  }

  it('runs the projections in one process only; the other waits on the shared checkpoint and reads what the first folded', async () => {
    expect([a.leadership.leading, b.leadership.leading]).toEqual([true, false]);
    expect([a.runner.folding, b.runner.folding]).toEqual([true, false]);
    await b.leadership.tick();
    expect(b.runner.folding).toBe(false);

    const position = await grant('editor', 'write');
    await b.runner.waitFor([roles.view], position);
    expect((await b.cache.get<Role>(roles.view, 'editor'))?.grants).toEqual(['write']);
    expect((await inner.viewState(roles.view))?.position).toBe(position);
  });

  it('a standby takes over when the holder dies (no release) once the TTL has passed, and folds on from the stored checkpoint', async () => {
    const first = await grant('editor', 'write');
    await a.runner.waitFor([roles.view], first);
    // Process A dies: it folds nothing more and renews nothing, and lets nothing go.
    await a.runner.abandon();

    const missed = await grant('editor', 'publish');
    clock += TTL - 1;
    await b.leadership.tick();
    expect(b.leadership.leading).toBe(false);
    clock += 1;
    await b.leadership.tick();
    expect(b.leadership.leading).toBe(true);
    expect((await leases.read('projections'))?.fence).toBe(2);

    await b.runner.waitFor([roles.view], missed);
    expect((await b.cache.get<Role>(roles.view, 'editor'))?.grants).toEqual(['write', 'publish']);
  });

  it('a holder replaced while it stalled has its next commit refused, stops folding and reads the views like any other', async () => {
    const lost = new Promise<void>((resolve) => {
      const demote = a.runner.onLeaseLost!;
      a.runner.onLeaseLost = (fence) => {
        demote(fence);
        resolve();
      };
    });
    // A stalls past its TTL (it renews nothing); B takes over; then A's runner meets an event.
    clock += TTL;
    await b.leadership.tick();
    expect(b.leadership.leading).toBe(true);
    expect(a.runner.folding).toBe(true);

    const position = await grant('viewer', 'read');
    await b.runner.waitFor([roles.view], position);
    await lost;
    await a.leadership.tick();
    expect([a.leadership.leading, a.runner.folding, a.sync.reading]).toEqual([false, false, true]);
    // Only B's commit landed: one grant, built by B.
    expect((await inner.get<Role>(roles.view, 'viewer'))?.grants).toEqual(['read']);
    expect((await a.cache.get<Role>(roles.view, 'viewer'))?.grants).toEqual(['read']);
  });

  it('ignores the refusal of a commit made under a fence it has since taken again, and goes on folding', async () => {
    // A's lease lapses with nobody taking it; A takes it again, under a new fence.
    clock += TTL;
    await a.leadership.tick();
    expect((await leases.read('projections'))?.fence).toBe(2);
    expect(a.leadership.leading).toBe(true);
    // The old runner's refused commit reports the old fence late: the new runner stays.
    await a.leadership.lost(1);
    expect([a.leadership.leading, a.runner.folding]).toEqual([true, true]);
    const position = await grant('viewer', 'read');
    await a.runner.waitFor([roles.view], position);
    expect((await inner.get<Role>(roles.view, 'viewer'))?.grants).toEqual(['read']);
  });

  it("keeps B's cache within the bound of a write folded by A, and fresh at once for a read-your-writes read", async () => {
    const first = await grant('editor', 'write');
    await b.runner.waitFor([roles.view], first);
    expect((await b.cache.get<Role>(roles.view, 'editor'))?.grants).toEqual(['write']);

    // A folds a change; B, which has the old document in memory, serves it until its next catch-up.
    const second = await grant('editor', 'publish');
    await a.runner.waitFor([roles.view], second);
    expect((await b.cache.get<Role>(roles.view, 'editor'))?.grants).toEqual(['write']);
    // The round VIEW_SYNC_MS runs evicts it.
    await b.sync.catchUp();
    expect((await b.cache.get<Role>(roles.view, 'editor'))?.grants).toEqual(['write', 'publish']);

    // A read-your-writes read (a command's answer, /permissions/me) catches up before it reads.
    const third = await grant('editor', 'delete');
    await b.runner.waitFor([roles.view], third);
    expect((await b.cache.get<Role>(roles.view, 'editor'))?.grants).toEqual(['write', 'publish', 'delete']);
  });

  it('hands the lease over on a clean stop: the standby folds at its next round, without waiting for the TTL', async () => {
    await a.leadership.stop();
    await b.leadership.tick();
    expect(b.leadership.leading).toBe(true);
    const position = await grant('editor', 'write');
    await b.runner.waitFor([roles.view], position);
    expect((await b.cache.get<Role>(roles.view, 'editor'))?.grants).toEqual(['write']);
  });
});
