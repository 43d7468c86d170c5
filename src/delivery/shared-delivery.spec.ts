import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { PostReceiver } from '../../test/support/receiver.js';
import { TestClock } from '../../test/support/server.js';
import type { Config } from '../config.js';
import type { EventStore, RecordedEvent } from '../infrastructure/event-store/event-store.port.js';
import { SqliteEventStore } from '../infrastructure/event-store/sqlite-event-store.js';
import type { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';
import { SqliteLeases } from '../infrastructure/read-store/sqlite-leases.js';
import { SqliteReadStore } from '../infrastructure/read-store/sqlite-read-store.js';
import { BACKCHANNEL_LOGOUT } from './backchannel-delivery.js';
import type { BackchannelFollower } from './backchannel-follower.js';
import { BackchannelLogoutKind } from './backchannel-kind.js';
import { DeliveryKinds, type DeliveryFollowerSpec } from './delivery-kind.js';
import { partitionOf } from './delivery-partitions.js';
import { DeliverySender } from './delivery-sender.js';
import { deliverySettings } from './delivery-settings.js';
import { type Delivery, DeliveryStore } from './delivery-store.js';
import type { LogoutTokens } from './logout-token.js';
import { SharedDelivery } from './shared-delivery.js';

const TTL_MS = 15_000;
const TEST_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

/** Logout tokens for one client of each revoked session, to the URI the event names (the real follower reads it from the views). */
class SessionFollower implements DeliveryFollowerSpec {
  readonly checkpoint = 'backchannel_follower';
  readonly eventTypes = ['SessionRevoked'];
  readonly views = [];
  async deliveriesOf(batch: readonly RecordedEvent[], now: Date): Promise<Delivery[]> {
    return batch.map((e) => {
      const d = e.data as { tenantId: string; sessionId: string; uri: string };
      return { tenantId: d.tenantId, deliveryId: `d-${d.sessionId}`, kind: BACKCHANNEL_LOGOUT, receiverId: 'web', uri: d.uri, data: { clientId: 'web', sessionId: d.sessionId, userId: 'alice' }, cause: e.type, causeEventId: e.id, status: 'pending', attempts: 0, nextAttemptAt: now.getTime(), createdAt: now.toISOString(), updatedAt: now.toISOString() };
    });
  }
}

/** One server's delivery machinery (a real sender, store, follower and logout kind) on the shared stores. */
function server(name: string, events: EventStore, reads: SqliteReadStore, leases: SqliteLeases, clock: TestClock) {
  const config = { delivery: deliverySettings({}) } as Config;
  const kinds = new DeliveryKinds();
  const store = new DeliveryStore(reads);
  const follower = new SessionFollower();
  // Signed on the delivery thread with a key of the test's: each token names its session.
  const tokens = { unsigned: async (_tenant: string, d: { sessionId: string }) => ({ header: { alg: 'ES256', kid: 'test' }, payload: { sid: d.sessionId }, key: TEST_KEY }) } as unknown as LogoutTokens;
  new BackchannelLogoutKind(kinds, follower as unknown as BackchannelFollower, tokens).onModuleInit();
  const sender = new DeliverySender(config, store, kinds, events, clock);
  const shared = new SharedDelivery({ events, runner: {} as ProjectionRunner, store, sender, clock, leases, followers: kinds.followers, leaseTtlMs: TTL_MS, pollMs: 100, owner: name });
  return { store, sender, shared };
}
type Server = ReturnType<typeof server>;

describe('deliveries shared by two servers on one store', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let leases: SqliteLeases;
  let clock: TestClock;
  let a: Server;
  let b: Server;
  const receivers: PostReceiver[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dlvshare-'));
    const file = join(dir, 'store.db');
    events = new SqliteEventStore(file);
    reads = new SqliteReadStore(file);
    leases = new SqliteLeases(file);
    clock = new TestClock();
    clock.freeze();
    a = server('a', events, reads, leases, clock);
    b = server('b', events, reads, leases, clock);
    await a.store.prepare();
    for (const s of [a, b]) s.sender.start();
    // Turns by hand (no timers): a takes everything, b joins, a lets half go, b takes it.
    await a.shared.shares.turn();
    await b.shared.shares.turn();
    await a.shared.shares.turn();
    await b.shared.shares.turn();
  });

  afterEach(async () => {
    for (const s of [a, b]) {
      await s.shared.stop();
      await s.sender.stop();
    }
    for (const r of receivers.splice(0)) await r.down();
    await leases.close();
    await reads.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Receivers until `count` are in a's partitions and `count` in b's. */
  async function receiversOfBoth(count: number): Promise<{ ofA: PostReceiver[]; ofB: PostReceiver[] }> {
    const ofA: PostReceiver[] = [];
    const ofB: PostReceiver[] = [];
    while (ofA.length < count || ofB.length < count) {
      const r = await PostReceiver.start('/logout');
      receivers.push(r);
      const mine = a.shared.partitions.includes(partitionOf(r.url)) ? ofA : ofB;
      if (mine.length < count) mine.push(r);
    }
    return { ofA, ofB };
  }

  async function revoke(sessions: number, to: readonly PostReceiver[]): Promise<Map<PostReceiver, string[]>> {
    const sent = new Map<PostReceiver, string[]>(to.map((r) => [r, []]));
    for (let i = 0; i < sessions; i++) {
      const r = to[i % to.length];
      const sessionId = `s${i}`;
      sent.get(r)!.push(`token-${sessionId}`);
      await events.append(`session-acme.${sessionId}`, [{ id: randomUUID(), type: 'SessionRevoked', data: { tenantId: 'acme', sessionId, uri: r.url }, metadata: { tenantId: 'acme', actor: 'system', correlationId: sessionId, occurredAt: clock.now().toISOString(), schemaVersion: 1 } }], 'any');
    }
    return sent;
  }

  /** Polls both servers until every receiver has `count` POSTs. */
  async function delivered(servers: readonly Server[], expected: Map<PostReceiver, string[]>): Promise<void> {
    const all = () => [...expected].every(([r, tokens]) => r.taken.length >= tokens.length);
    const deadline = Date.now() + 20_000;
    while (!all() && Date.now() < deadline) {
      for (const s of servers) await s.shared.poll();
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const tokensOf = (r: PostReceiver) => r.taken.map((p) => `token-${decodeJwt(new URLSearchParams(p.body).get('logout_token')!).sid}`).sort();

  it('splits the partitions between the servers, and sends every logout token once across both', async () => {
    expect(a.shared.partitions.length).toBe(16);
    expect(b.shared.partitions.length).toBe(16);
    expect(a.shared.partitions.filter((p) => b.shared.partitions.includes(p))).toEqual([]);

    const { ofA, ofB } = await receiversOfBoth(3);
    const expected = await revoke(60, [...ofA, ...ofB]);
    await delivered([a, b], expected);
    // A repeat would come with the next turns: both servers read the store a few more times.
    for (let i = 0; i < 5; i++) for (const s of [a, b]) await s.shared.poll();
    await new Promise((r) => setTimeout(r, 200));

    for (const [r, tokens] of expected) expect(tokensOf(r)).toEqual([...tokens].sort());
    expect(await a.store.pendingIn(partitionOf(ofA[0].url))).toEqual([]);
  });

  it('has the other server send the pending deliveries of one stopped without letting its leases go, once they expire', async () => {
    const { ofA, ofB } = await receiversOfBoth(2);
    // a's receivers are down: its attempts fail, and its deliveries wait for their next one.
    for (const r of ofA) await r.down();
    const expected = await revoke(20, [...ofA, ...ofB]);
    await delivered([a, b], new Map([...expected].filter(([r]) => ofB.includes(r))));
    // Two receivers may share a partition: read each partition once.
    const aPartitions = [...new Set(ofA.map((r) => partitionOf(r.url)))];
    const aPending = async () => (await Promise.all(aPartitions.map((p) => a.store.pendingIn(p)))).flat();
    while ((await aPending()).some((d) => d.attempts === 0)) await new Promise((r) => setTimeout(r, 20));
    expect(await aPending()).toHaveLength(10);

    // a dies: it sends nothing more and lets no lease go.
    await a.shared.stop(false);
    await a.sender.stop();
    for (const r of ofA) await r.up();
    clock.advance(5_000);
    await b.shared.shares.turn();
    for (let i = 0; i < 5; i++) await b.shared.poll();
    await new Promise((r) => setTimeout(r, 300));
    expect(ofA.map((r) => r.taken.length)).toEqual([0, 0]);

    clock.advance(TTL_MS);
    await b.shared.shares.turn();
    expect(b.shared.partitions.length).toBe(32);
    await delivered([b], expected);
    await new Promise((r) => setTimeout(r, 200));
    for (const [r, tokens] of expected) expect(tokensOf(r)).toEqual([...tokens].sort());
    expect(await aPending()).toEqual([]);
  });

  it('hands partitions to a server that joins while deliveries are retried, sending none of them twice', async () => {
    const { ofA, ofB } = await receiversOfBoth(3);
    // Every receiver refuses its first five POSTs (one per token): every delivery waits for a retry while the partitions move.
    for (const r of [...ofA, ...ofB]) r.statuses.push(503, 503, 503, 503, 503);
    const expected = await revoke(30, [...ofA, ...ofB]);
    while ([...expected].some(([r]) => r.taken.length < 5)) {
      for (const s of [a, b]) await s.shared.poll();
      await new Promise((r) => setTimeout(r, 50));
    }

    const c = server('c', events, reads, leases, clock);
    c.sender.start();
    try {
      for (let i = 0; i < 2; i++) for (const s of [c, a, b]) await s.shared.shares.turn();
      expect([a, b, c].map((s) => s.shared.partitions.length).sort()).toEqual([10, 11, 11]);
      const deadline = Date.now() + 20_000;
      while ([...expected].some(([r, tokens]) => r.taken.length < 2 * tokens.length) && Date.now() < deadline) {
        for (const s of [a, b, c]) await s.shared.poll();
        // A turn every third of the TTL, as the timers make them: a server sends only partitions whose leases it keeps renewed.
        clock.advance(TTL_MS / 3);
        for (const s of [a, b, c]) await s.shared.shares.turn();
        await new Promise((r) => setTimeout(r, 50));
      }
      for (let i = 0; i < 3; i++) for (const s of [a, b, c]) await s.shared.poll();
      await new Promise((r) => setTimeout(r, 200));
      // The first POST of each token was refused; then each came once more, and was taken.
      for (const [r, tokens] of expected) expect(tokensOf({ taken: r.taken.slice(5) } as PostReceiver)).toEqual([...tokens].sort());
    } finally {
      await c.shared.stop();
      await c.sender.stop();
    }
  });

  it('stops sending the partitions of a server whose turns stall a turn before their leases expire, and sends them again once renewed', async () => {
    const { ofA } = await receiversOfBoth(1);
    const p = partitionOf(ofA[0].url);
    expect(a.sender.owns!(p)).toBe(true);
    // No turn for two thirds of the TTL (one hangs on the store): the lease is still a's, but might not last the next turn.
    clock.advance((2 * TTL_MS) / 3);
    expect(a.shared.partitions).toContain(p);
    expect(a.sender.owns!(p)).toBe(false);
    for (const s of [a, b]) await s.shared.shares.turn();
    expect(a.sender.owns!(p)).toBe(true);
    const expected = await revoke(3, ofA);
    await delivered([a, b], expected);
    expect(tokensOf(ofA[0])).toEqual([...expected.get(ofA[0])!].sort());
  });

  it('stores the deliveries of the follower that took a stalled one over, while the writes of the stalled one are refused alongside', async () => {
    const { ofB } = await receiversOfBoth(1);
    // a runs the follower (share 0) and stalls: no turn, no stop; b takes every share once a's leases expire.
    clock.advance(TTL_MS + 1);
    await b.shared.shares.turn();
    expect(b.shared.partitions.length).toBe(32);
    const expected = await revoke(4, ofB);
    await delivered([b], expected);
    for (let i = 0; i < 3; i++) await b.shared.poll();
    await new Promise((r) => setTimeout(r, 200));
    // a's follower read the same events, and its commits may share the store's answer with b's: only a's are refused.
    expect(tokensOf(ofB[0])).toEqual([...expected.get(ofB[0])!].sort());
  });
});
