import { Clock } from '../infrastructure/nest/clock.js';
import type { LeaseGrant, Leases } from '../infrastructure/read-store/lease.port.js';
import { DeliveryShares, type Share } from './delivery-shares.js';

class ManualClock extends Clock {
  at = 1_000_000;
  now(): Date {
    return new Date(this.at);
  }
}

/** Leases in memory, as the port describes them; `failing` makes every call throw (the store does not answer). */
class MemoryLeases implements Leases {
  readonly grants = new Map<string, LeaseGrant>();
  failing = false;
  async acquire(name: string, owner: string, ttlMs: number, now: number): Promise<LeaseGrant | null> {
    if (this.failing) throw new Error('store down');
    const g = this.grants.get(name);
    if (g && g.owner !== owner && g.expiresAt > now) return null;
    const fence = g && g.owner === owner && g.expiresAt > now ? g.fence : (g?.fence ?? 0) + 1;
    const grant = { name, owner, fence, expiresAt: now + ttlMs };
    this.grants.set(name, grant);
    return grant;
  }
  async release(name: string, owner: string): Promise<void> {
    if (this.failing) throw new Error('store down');
    const g = this.grants.get(name);
    if (g?.owner === owner) this.grants.set(name, { ...g, expiresAt: 0 });
  }
  async read(name: string): Promise<LeaseGrant | null> {
    if (this.failing) throw new Error('store down');
    return this.grants.get(name) ?? null;
  }
  async close(): Promise<void> {}
}

const TTL = 15_000;
const SHARES = 33;

describe('delivery shares', () => {
  let leases: MemoryLeases;
  let clock: ManualClock;
  /** Which server runs each share now: a share started twice without a stop between fails the test. */
  let running: Map<string, string>;

  function server(owner: string): DeliveryShares {
    const shares: Share[] = Array.from({ length: SHARES }, (_, i) => ({
      lease: `share.${i}`,
      start: async () => {
        if (running.has(`share.${i}`)) throw new Error(`share.${i} started by ${owner} while ${running.get(`share.${i}`)} runs it`);
        running.set(`share.${i}`, owner);
      },
      stop: async () => void running.delete(`share.${i}`),
    }));
    return new DeliveryShares(leases, clock, owner, shares, { ttlMs: TTL }, (m) => {
      throw new Error(m);
    });
  }

  const count = (owner: string) => [...running.values()].filter((o) => o === owner).length;

  beforeEach(() => {
    leases = new MemoryLeases();
    clock = new ManualClock();
    running = new Map();
  });

  it('splits the shares evenly as servers join, never running one share on two, and hands the shares of one that leaves to the others', async () => {
    const a = server('a');
    const b = server('b');
    const c = server('c');
    await a.turn();
    expect(count('a')).toBe(SHARES);
    await b.turn();
    await a.turn();
    await b.turn();
    expect([count('a'), count('b')]).toEqual([17, 16]);
    for (let i = 0; i < 2; i++) for (const s of [c, a, b]) await s.turn();
    expect([count('a'), count('b'), count('c')]).toEqual([11, 11, 11]);
    expect(running.size).toBe(SHARES);

    // b shuts down cleanly: its leases are free at once, no TTL to wait for.
    await b.stop();
    for (let i = 0; i < 2; i++) for (const s of [a, c]) await s.turn();
    expect([count('a'), count('c')]).toEqual([17, 16]);
    expect(running.size).toBe(SHARES);
  });

  it('takes the shares of a server that stopped renewing once its leases expire, not before', async () => {
    const a = server('a');
    const b = server('b');
    for (let i = 0; i < 2; i++) for (const s of [a, b]) await s.turn();
    expect([count('a'), count('b')]).toEqual([17, 16]);
    // b stalls: no more turns, its shares are still its own.
    clock.at += TTL - 1;
    await a.turn();
    expect([count('a'), count('b')]).toEqual([17, 16]);
    clock.at += 2;
    // b's shares are still marked running (it never stopped them): they would start twice.
    for (const [lease, owner] of running) if (owner === 'b') running.delete(lease);
    await a.turn();
    expect(count('a')).toBe(SHARES);
  });

  it('keeps its shares while the store does not answer only as long as its leases surely last', async () => {
    const a = new DeliveryShares(leases, clock, 'a', Array.from({ length: 3 }, (_, i) => ({ lease: `s.${i}`, start: async () => void running.set(`s.${i}`, 'a'), stop: async () => void running.delete(`s.${i}`) })), { ttlMs: TTL });
    await a.turn();
    expect(running.size).toBe(3);
    leases.failing = true;
    clock.at += TTL / 3;
    await a.turn();
    expect(running.size).toBe(3);
    clock.at += TTL / 3;
    await a.turn();
    expect(running.size).toBe(0);
  });

  it('renews the shares it keeps before it stops those it gives up, however long a stop takes', async () => {
    let stopping!: () => void;
    const stopped = new Promise<void>((r) => (stopping = r));
    const a = new DeliveryShares(leases, clock, 'a', Array.from({ length: 6 }, (_, i) => ({ lease: `s.${i}`, start: async () => undefined, stop: () => stopped })), { ttlMs: TTL });
    const b = new DeliveryShares(leases, clock, 'b', [], { ttlMs: TTL });
    await a.turn();
    await b.turn();
    clock.at += TTL / 3;
    // b is a member now: a gives up s.1, s.3 and s.5, and stopping them hangs (attempts in flight, a slow store).
    const turn = a.turn();
    await new Promise((r) => setImmediate(r));
    for (const i of [0, 2, 4]) expect(leases.grants.get(`s.${i}`)?.expiresAt).toBe(clock.at + TTL);
    stopping();
    await turn;
    for (const i of [1, 3, 5]) expect(a.holds(`s.${i}`)).toBe(false);
  });

  it('dates each renewal from the clock as it reads at that call, not from the start of the turn', async () => {
    const a = new DeliveryShares(leases, clock, 'a', Array.from({ length: 4 }, (_, i) => ({ lease: `s.${i}`, start: async () => undefined, stop: async () => undefined })), { ttlMs: TTL });
    await a.turn();
    const acquire = leases.acquire.bind(leases);
    const late: number[] = [];
    // Each call takes a second to answer.
    leases.acquire = async (name, owner, ttlMs, now) => {
      late.push(clock.at - now);
      const grant = await acquire(name, owner, ttlMs, now);
      clock.at += 1_000;
      return grant;
    };
    await a.turn();
    expect(late).toEqual([0, 0, 0, 0, 0]);
  });

  it('no longer counts a share as held once its lease is within a turn of expiring unrenewed', async () => {
    const a = new DeliveryShares(leases, clock, 'a', [{ lease: 's.0', start: async () => undefined, stop: async () => undefined }], { ttlMs: TTL });
    await a.turn();
    expect(a.holds('s.0')).toBe(true);
    // No turn since (one hangs on the store): the lease is still a's, but not for a turn more.
    clock.at += (2 * TTL) / 3 - 1;
    expect(a.holds('s.0')).toBe(true);
    clock.at += 1;
    expect(a.holds('s.0')).toBe(false);
    await a.turn();
    expect(a.holds('s.0')).toBe(true);
  });
});
