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
});
