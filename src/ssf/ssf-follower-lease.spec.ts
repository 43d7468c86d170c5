import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestClock } from '../../test/support/server.js';
import { POLL_METHOD } from '../domain/ssf/ssf-stream.events.js';
import type { RecordedEvent } from '../infrastructure/event-store/event-store.port.js';
import { SqliteEventStore } from '../infrastructure/event-store/sqlite-event-store.js';
import type { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';
import { SqliteLeases } from '../infrastructure/read-store/sqlite-leases.js';
import { SqliteReadStore } from '../infrastructure/read-store/sqlite-read-store.js';
import type { SecurityEventTokens } from './security-event-tokens.js';
import { type PendingSet, SetStore } from './set-store.js';
import type { SetTargets } from './set-targets.js';
import { SsfFollower } from './ssf-follower.js';
import { SsfFollowerLease } from './ssf-follower-lease.js';

const TTL_MS = 15_000;
const STREAM = 'acme/s1';

/** One server's SSF follower and its lease on the shared stores; every event makes one SET for poll stream `s1`, signed `<server>:<event id>`. */
function server(name: string, events: SqliteEventStore, reads: SqliteReadStore, leases: SqliteLeases, clock: TestClock) {
  const store = new SetStore(reads);
  const written: string[] = [];
  let wrote: (() => void) | undefined;
  const commit = store.commit.bind(store);
  store.commit = async (created, dropped, position, fence) => {
    await commit(created, dropped, position, fence);
    written.push(...created.map((s) => s.set));
    wrote?.();
  };
  // The views are read at once, unless a test holds this server's follower back.
  let hold: Promise<void> | undefined;
  let held: (() => void) | undefined;
  const runner = { waitFor: async () => (held?.(), hold) } as unknown as ProjectionRunner;
  const targets = {
    of: async (e: RecordedEvent) => [{ stream: { tenantId: 'acme', streamId: 's1', delivery: { method: POLL_METHOD } }, claims: { jti: e.id } }],
  } as unknown as SetTargets;
  const tokens = { sign: async (_tenant: string, claims: { jti: string }) => `${name}:${claims.jti}` } as unknown as SecurityEventTokens;
  const follower = new SsfFollower(events, runner, store, tokens, targets, clock);
  const lease = new SsfFollowerLease(leases, clock, name, follower, TTL_MS);
  let lost: (() => void) | undefined;
  follower.onLeaseLost = (fence) => {
    lost?.();
    void lease.lost(fence);
  };
  return {
    store,
    follower,
    lease,
    written,
    /** Holds the follower back once it reads the views for its next batch; resolves when it got there, with the function that lets it go on. */
    holdBack(): Promise<() => void> {
      let release!: () => void;
      hold = new Promise((r) => (release = r));
      return new Promise((reached) => (held = () => reached(release)));
    },
    leaseLost: () => new Promise<void>((r) => (lost = r)),
    /** Resolves at the follower's next stored commit. */
    nextWrite: () => new Promise<void>((r) => (wrote = r)),
  };
}
type Server = ReturnType<typeof server>;

/** Resolves at the follower's next stored SETs. */
const arrival = (s: Server) => new Promise<void>((r) => s.follower.arrivals.once(STREAM, () => r()));

describe('the SSF follower with two servers on one store', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let leases: SqliteLeases;
  let clock: TestClock;
  let a: Server;
  let b: Server;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ssflease-'));
    const file = join(dir, 'store.db');
    events = new SqliteEventStore(file);
    reads = new SqliteReadStore(file);
    leases = new SqliteLeases(file);
    clock = new TestClock();
    clock.freeze();
    a = server('a', events, reads, leases, clock);
    b = server('b', events, reads, leases, clock);
    await a.lease.turn();
    await b.lease.turn();
  });

  afterEach(async () => {
    for (const s of [a, b]) {
      await s.lease.stop();
      await s.follower.close();
    }
    await leases.close();
    await reads.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function happen(): Promise<string> {
    const id = randomUUID();
    await events.append(`ssf-acme.${id}`, [{ id, type: 'SsfVerificationRequested', data: { tenantId: 'acme', streamId: 's1' }, metadata: { tenantId: 'acme', actor: 'system', correlationId: id, occurredAt: clock.now().toISOString(), schemaVersion: 1 } }], 'any');
    return id;
  }

  const pending = async () => (await a.store.pending('acme', 's1')).map((s: PendingSet) => s.set);

  it('follows on one server only; after a hand-over, an acknowledged SET is not stored again and each SET is written once', async () => {
    expect([a.lease.holding, b.lease.holding]).toEqual([true, false]);
    const stored = arrival(a);
    const first = await happen();
    await stored;
    expect(await pending()).toEqual([`a:${first}`]);
    // The receiver acknowledges it; then a stops and b takes over from a's stored checkpoint.
    await a.store.remove(await a.store.pending('acme', 's1'));
    await a.lease.stop();
    await b.lease.turn();
    expect(b.lease.holding).toBe(true);
    const next = arrival(b);
    const second = await happen();
    await next;
    expect(await pending()).toEqual([`b:${second}`]);
    expect([a.written, b.written]).toEqual([[`a:${first}`], [`b:${second}`]]);
  });

  it('refuses, in its commit, the SETs of a follower whose lease passed on while it was stalled: an acknowledged SET stays gone', async () => {
    const stalled = a.holdBack();
    // Either its commit is refused (the lease is lost) or, were it not, it stores the SET again.
    const outcome = Promise.race([a.leaseLost(), a.nextWrite()]);
    const id = await happen();
    const goOn = await stalled;
    // a stalls past its lease; b takes it and makes the SET from the stored checkpoint.
    clock.advance(TTL_MS + 1);
    const stored = arrival(b);
    await b.lease.turn();
    expect(b.lease.holding).toBe(true);
    await stored;
    expect(await pending()).toEqual([`b:${id}`]);
    await a.store.remove(await a.store.pending('acme', 's1'));
    goOn();
    await outcome;
    await a.lease.turn();
    expect(await pending()).toEqual([]);
    expect([a.written, b.written, a.lease.holding]).toEqual([[], [`b:${id}`], false]);
  });
});
