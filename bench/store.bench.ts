/**
 * Benchmark of the embedded event store (SqliteEventStore, durable: WAL + synchronous=FULL,
 * a real file under os.tmpdir()) and of a projection rebuild over it.
 *
 *   npm run bench:store                      # 1,000,000 events, 5 s per append run
 *   npm run bench:store -- --events 100000   # quicker
 *
 * Options: --events N (events prefilled, default 1000000), --seconds S (length of each
 * append run, default 5), --dir D (parent of the temporary directory, default os.tmpdir()),
 * --keep (leave the files behind).
 *
 * Steps:
 *  1. prefill: N events in streams of 100, appended 100 events at a time with many appends
 *     in flight, so that group commit writes thousands of events per transaction;
 *  2. durable appends with 1 and with 64 concurrent writers: each append is one event to
 *     the writer's own stream, with the exact expected revision, for S seconds each;
 *  3. catch-up read: subscribeToAll from position 0 through the head of the log;
 *  4. projection rebuild: ProjectionRunner.rebuild() over the whole log into a
 *     SqliteReadStore, with one projection counting the events of each stream;
 *  5. cold load of one long session (--rotations R refresh rotations with their access
 *     tokens, default 100,000: a rotation every five minutes for about a year), as after a restart: folded from its first
 *     event, then from its snapshot and the events after it.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Projection } from '../projections/projection.js';
import { sessionDecider } from '../src/domain/session/session.decider.js';
import { KeyEncryption } from '../src/infrastructure/crypto/key-encryption.js';
import { AggregateStore } from '../src/infrastructure/event-store/aggregate-store.js';
import type { EventData, ExpectedRevision } from '../src/infrastructure/event-store/event-store.port.js';
import { Snapshots } from '../src/infrastructure/event-store/snapshots.js';
import { SqliteEventStore } from '../src/infrastructure/event-store/sqlite-event-store.js';
import { ProjectionRunner } from '../src/infrastructure/read-store/projection-runner.js';
import { SqliteReadStore } from '../src/infrastructure/read-store/sqlite-read-store.js';
import { numberFlag, readFlags } from './args.js';

interface Options {
  events: number;
  rotations: number;
  seconds: number;
  dir: string;
  keep: boolean;
}

const USAGE = 'usage: node dist/bench/store.bench.js [--events N] [--rotations R] [--seconds S] [--dir DIR] [--keep]';

function parseOptions(argv: readonly string[]): Options {
  const f = readFlags(argv, { events: 'string', rotations: 'string', seconds: 'string', dir: 'string', keep: 'boolean' }, USAGE);
  return {
    events: numberFlag(f.events, 'events', 1_000_000, 1, true),
    rotations: numberFlag(f.rotations, 'rotations', 100_000, 1, true),
    seconds: numberFlag(f.seconds, 'seconds', 5, 0.001),
    dir: typeof f.dir === 'string' ? f.dir : tmpdir(),
    keep: f.keep === true,
  };
}

// ------------------------------------------------------------------------------ events

const EVENT_TYPES = ['SessionStarted', 'AuthorizationCodeIssued', 'TokensIssued', 'TokenRefreshed'] as const;
const STARTED_AT = new Date().toISOString();

/** An event shaped like the server's own: small JSON data and the full metadata. */
function makeEvent(n: number): EventData {
  return {
    id: randomUUID(),
    type: EVENT_TYPES[n % EVENT_TYPES.length],
    data: {
      clientId: `client-${n % 97}`,
      subject: `user-${n % 10_007}`,
      scope: 'openid profile email offline_access',
      expiresIn: 600,
    },
    metadata: {
      tenantId: 'bench',
      actor: `user:${n % 10_007}`,
      correlationId: randomUUID(),
      occurredAt: STARTED_AT,
      schemaVersion: 1,
    },
  };
}

// ----------------------------------------------------------------------------- helpers

interface Result {
  step: string;
  count: number;
  seconds: number;
  unit: string;
  notes: string;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function fileSize(file: string): number {
  return existsSync(file) ? statSync(file).size : 0;
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

// ------------------------------------------------------------------------------- steps

const STREAM_LENGTH = 100;
/** Appends in flight per round of the prefill: 100 x 100 events = 10,000 events per group commit. */
const PREFILL_IN_FLIGHT = 100;

async function prefill(store: SqliteEventStore, total: number): Promise<Result> {
  const streams = Math.ceil(total / STREAM_LENGTH);
  const started = performance.now();
  let written = 0;
  let nextReport = 0.1;
  for (let first = 0; first < streams; first += PREFILL_IN_FLIGHT) {
    const appends: Promise<unknown>[] = [];
    for (let s = first; s < Math.min(streams, first + PREFILL_IN_FLIGHT); s++) {
      const size = Math.min(STREAM_LENGTH, total - s * STREAM_LENGTH);
      const events: EventData[] = [];
      for (let r = 0; r < size; r++) events.push(makeEvent(s * STREAM_LENGTH + r));
      appends.push(store.append(`prefill-${s}`, events, 'no_stream'));
      written += size;
    }
    await Promise.all(appends);
    if (written / total >= nextReport) {
      log(`  prefill ${fmtInt(written)} / ${fmtInt(total)} events (${((performance.now() - started) / 1000).toFixed(1)} s)`);
      nextReport += 0.1;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    step: `prefill: ${fmtInt(streams)} streams, appends of ${STREAM_LENGTH} events, ${PREFILL_IN_FLIGHT} in flight`,
    count: total,
    seconds,
    unit: 'events/s',
    notes: '',
  };
}

async function appendRun(store: SqliteEventStore, writers: number, seconds: number): Promise<Result> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const stream = `writer-${writers}-${w}`;
      let expected: ExpectedRevision = 'no_stream';
      let n = 0;
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const result = await store.append(stream, [makeEvent(n++)], expected);
        latencies.push(performance.now() - t0);
        expected = result.nextRevision;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    step: `durable appends, ${writers} concurrent writer${writers === 1 ? '' : 's'} (1 event each)`,
    count: latencies.length,
    seconds: elapsed,
    unit: 'appends/s',
    notes: `latency p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms`,
  };
}

async function catchUpRead(store: SqliteEventStore, expected: number): Promise<Result> {
  const head = await store.headPosition();
  const started = performance.now();
  const subscription = store.subscribeToAll({ afterPosition: 0 });
  let count = 0;
  let last = 0;
  for await (const event of subscription) {
    if (event.position <= last) throw new Error(`catch-up went backwards: ${event.position} after ${last}`);
    last = event.position;
    count++;
    if (event.position >= head) break;
  }
  await subscription.close();
  const seconds = (performance.now() - started) / 1000;
  if (count !== expected) throw new Error(`catch-up read ${count} events, expected ${expected}`);
  return { step: 'catch-up read: subscribeToAll from 0 to head', count, seconds, unit: 'events/s', notes: '' };
}

interface StreamCount {
  count: number;
  lastRevision: number;
}

/** A simple inline projection: how many events each stream holds. */
const eventsPerStream: Projection<StreamCount> = {
  view: 'bench_events_per_stream',
  version: 1,
  eventTypes: EVENT_TYPES,
  indexes: [],
  documentId: (event) => event.streamId,
  apply: (doc, event) => ({ count: (doc?.count ?? 0) + 1, lastRevision: event.revision }),
};

async function rebuild(store: SqliteEventStore, viewsFile: string, expected: number, streams: number): Promise<Result> {
  const views = new SqliteReadStore(viewsFile);
  try {
    const runner = new ProjectionRunner(store, views, [eventsPerStream]);
    const started = performance.now();
    const count = await runner.rebuild();
    const seconds = (performance.now() - started) / 1000;
    if (count !== expected) throw new Error(`rebuild read ${count} events, expected ${expected}`);
    const docs = await views.find<StreamCount>(eventsPerStream.view, {});
    const folded = docs.reduce((sum, d) => sum + d.count, 0);
    if (docs.length !== streams || folded !== expected) {
      throw new Error(`rebuild produced ${docs.length} documents counting ${folded} events; expected ${streams} and ${expected}`);
    }
    const first = await views.get<StreamCount>(eventsPerStream.view, 'prefill-0');
    if (first?.count !== Math.min(STREAM_LENGTH, expected)) throw new Error(`prefill-0 counted ${String(first?.count)} events`);
    return {
      step: 'projection rebuild: ProjectionRunner.rebuild(), 1 view, SqliteReadStore',
      count,
      seconds,
      unit: 'events/s',
      notes: `${fmtInt(docs.length)} documents`,
    };
  } finally {
    await views.close();
  }
}

/** A session's events as the server appends them: its start and first refresh token, then `rotations` rotations, each with its access token. */
function sessionEvents(rotations: number): EventData[] {
  const ids = { tenantId: 'bench', sessionId: 's', userId: 'u' };
  const grant = { ...ids, grantId: 'g', clientId: 'c' };
  const scope = ['openid', 'offline_access'];
  const metadata = { tenantId: 'bench', actor: 'client:c', correlationId: randomUUID(), occurredAt: STARTED_AT, schemaVersion: 1 };
  const event = (type: string, data: unknown): EventData => ({ id: randomUUID(), type, data, metadata });
  const hash = (n: number) => `${n.toString(16).padStart(12, '0')}.${createHash('sha256').update(String(n)).digest('base64url')}`;
  let t = 1_800_000_000;
  const events = [
    event('SessionStarted', { ...ids, cookieHash: randomUUID(), authTime: t }),
    event('RefreshTokenIssued', { ...grant, refreshHash: hash(0), scope, issuedAt: t, expiresAt: t + 1_209_600 }),
  ];
  for (let i = 1; i <= rotations; i++) {
    t += 300;
    events.push(event('RefreshRotated', { ...grant, fromHash: hash(i - 1), toHash: hash(i), scope, issuedAt: t, expiresAt: t + 1_209_600 }));
    events.push(
      event('AccessTokenIssued', { ...grant, grantType: 'refresh_token', jti: `${randomUUID()}.g`, sub: 'u', scope, audience: ['api'], issuedAt: t, expiresAt: t + 300, kid: 'k' }),
    );
  }
  return events;
}

async function sessionLoads(store: SqliteEventStore, viewsFile: string, rotations: number): Promise<Result[]> {
  const events = sessionEvents(rotations);
  let expected: ExpectedRevision = 'no_stream';
  for (let i = 0; i < events.length; i += 10_000) expected = (await store.append('session-bench', events.slice(i, i + 10_000), expected)).nextRevision;
  const views = new SqliteReadStore(viewsFile);
  try {
    const load = async (step: string, snapshots?: Snapshots): Promise<Result> => {
      const started = performance.now();
      const { revision } = await new AggregateStore(store, snapshots).load('session-bench', sessionDecider);
      const seconds = (performance.now() - started) / 1000;
      if (revision !== events.length - 1) throw new Error(`loaded the session up to revision ${revision}, expected ${events.length - 1}`);
      return { step, count: events.length, seconds, unit: 'events/s', notes: `one load: ${(seconds * 1000).toFixed(1)} ms` };
    };
    const keys = KeyEncryption.load(randomBytes(32).toString('base64'), '.');
    const results = [await load(`cold load of a session of ${fmtInt(events.length)} events, folded from the start`, new Snapshots(views, keys))];
    // The load above saved the snapshot in the background.
    for (let i = 0; i < 400 && !(await views.get('snapshots', 'session-bench')); i++) await new Promise((r) => setTimeout(r, 5));
    results.push(await load('the same, from its snapshot and the events after it', new Snapshots(views, keys)));
    return results;
  } finally {
    await views.close();
  }
}

function printTable(results: readonly Result[]): void {
  const rows = results.map((r) => [r.step, fmtInt(r.count), r.seconds.toFixed(2), `${fmtInt(r.count / r.seconds)} ${r.unit}`, r.notes]);
  const header = ['step', 'count', 'seconds', 'rate', 'notes'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (i === 1 || i === 2 || i === 3 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (i >= 1 && i <= 3 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(join(options.dir, 'store-bench-'));
  const eventsFile = join(dir, 'events.db');
  const viewsFile = join(dir, 'views.db');
  const cpu = cpus();
  log(`store benchmark: ${fmtInt(options.events)} events, ${options.seconds} s per append run, files in ${dir}`);
  const store = new SqliteEventStore(eventsFile);
  const results: Result[] = [];
  try {
    results.push(await prefill(store, options.events));
    let total = options.events;
    let streams = Math.ceil(options.events / STREAM_LENGTH);
    const sizeAfterPrefill = fileSize(eventsFile) + fileSize(`${eventsFile}-wal`);
    for (const writers of [1, 64]) {
      log(`  appends with ${writers} writer(s) for ${options.seconds} s`);
      const r = await appendRun(store, writers, options.seconds);
      results.push(r);
      total += r.count;
      streams += writers;
    }
    log(`  catch-up read of ${fmtInt(total)} events`);
    results.push(await catchUpRead(store, total));
    log(`  projection rebuild over ${fmtInt(total)} events`);
    results.push(await rebuild(store, viewsFile, total, streams));
    log(`  cold loads of a session of ${fmtInt(options.rotations)} rotations`);
    results.push(...(await sessionLoads(store, viewsFile, options.rotations)));

    console.log('');
    console.log(`SqliteEventStore benchmark (WAL, synchronous=FULL: every append acknowledged after fsync)`);
    console.log(
      `node ${process.version}, ${process.platform}/${process.arch}, ${cpu.length} x ${cpu[0]?.model.trim() ?? 'cpu'}; ` +
        `log: ${fmtInt(total)} events in ${fmtInt(streams)} streams, ${mib(sizeAfterPrefill)} after prefill; ${dir}`,
    );
    console.log('');
    printTable(results);
  } finally {
    await store.close();
    if (options.keep) log(`files kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
