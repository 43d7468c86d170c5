import type { Clock } from '../infrastructure/nest/clock.js';
import type { LeaseGrant, Leases } from '../infrastructure/read-store/lease.port.js';
import { DELIVERY_PARTITIONS } from './delivery-partitions.js';

/**
 * A piece of the delivery work that one server at a time does: following the log for one
 * kind, or sending the deliveries of one partition. `start` when this server takes its lease,
 * `stop` before it lets the lease go (or once it has lost it): what `stop` leaves stored is
 * what the next holder starts from.
 */
export interface Share {
  readonly lease: string;
  /** `grant`: the lease as taken; its fence stays the same through renewals, for writes made under it. */
  start(grant: LeaseGrant): Promise<void>;
  stop(): Promise<void>;
}

export interface SharesTiming {
  /** How long a lease lasts unrenewed, in milliseconds (on the injected Clock): how long a dead server's work waits. */
  ttlMs: number;
}

/** The most servers that share the deliveries: beyond one per partition, a server would have nothing to send. */
export const MAX_MEMBERS = DELIVERY_PARTITIONS;
const memberLease = (slot: number) => `delivery-member.${slot}`;

/**
 * Shares the delivery work among the servers on one shared store, with leases (lease.port.ts):
 * each live server holds a member lease (one of `MAX_MEMBERS` slots), so that every server
 * sees the same list of members; share `i` (followers first, then partitions) is for the
 * member of rank `i mod members` in that list, and that member takes its lease. A server
 * lets go of the shares no longer its own after stopping them, and another takes them at its
 * next turn; a server that dies holds its leases until they expire, and then its shares are
 * taken as if it had let them go (at least once: an attempt it had in flight may be made again).
 *
 * `turn` renews and rebalances; it is called every third of the TTL (by `start`, or by a test).
 */
export class DeliveryShares {
  private readonly held = new Map<string, LeaseGrant>();
  private slot?: number;
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly leases: Leases,
    private readonly clock: Clock,
    readonly owner: string,
    private readonly shares: readonly Share[],
    private readonly timing: SharesTiming,
    private readonly logger?: (message: string) => void,
  ) {}

  /**
   * Whether this server holds the share's lease and may still act under it: no longer once
   * its last renewal is within a turn of expiring, so that it has stopped before another
   * server can take the lease over, even while a turn hangs on the store.
   */
  holds(lease: string): boolean {
    const holding = this.held.get(lease);
    return holding !== undefined && !this.lapsing(holding);
  }

  start(): void {
    this.timer = setInterval(() => void this.turn(), Math.max(1, Math.floor(this.timing.ttlMs / 3)));
    this.timer.unref();
    void this.turn();
  }

  /** One turn: renews this server's leases, lets go of the shares that are no longer its own, takes the ones that are. Turns never overlap. */
  turn(): Promise<void> {
    this.running = this.running.then(() => (this.stopped ? undefined : this.rebalance().catch((e: Error) => this.logger?.(`delivery shares: ${e.message}`))));
    return this.running;
  }

  /**
   * Stops every share held and lets its lease go, so that the others take them at once;
   * `release: false` keeps the leases, as a server that dies does (their expiry hands them on).
   */
  async stop(release = true): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    this.stopped = true;
    for (const share of this.shares) if (this.held.has(share.lease)) await this.giveUp(share, release);
    if (release && this.slot !== undefined) await this.leases.release(memberLease(this.slot), this.owner).catch(() => undefined);
    this.slot = undefined;
  }

  /** Whether a lease is within a turn of expiring (on the clock as it reads now). */
  private lapsing(holding: LeaseGrant): boolean {
    return this.clock.now().getTime() >= holding.expiresAt - this.timing.ttlMs / 3;
  }

  /**
   * Renews first the shares this server keeps, then stops those it gives up (which waits for
   * their work in flight), then takes the new ones: a slow stop delays no renewal. Every
   * lease call reads the clock anew, so that no expiry is dated from the start of a long turn.
   */
  private async rebalance(): Promise<void> {
    let members: { rank: number; count: number } | undefined;
    try {
      members = await this.members();
    } catch (error) {
      this.logger?.(`delivery shares: members not read: ${(error as Error).message}`);
      // The store did not answer: a share is kept while its lease surely lasts (a turn more), no longer.
      for (const share of this.shares) {
        const holding = this.held.get(share.lease);
        if (holding && this.lapsing(holding)) await this.giveUp(share, false);
      }
      return;
    }
    const mine = (i: number) => members !== undefined && i % members.count === members.rank;
    const lost: Share[] = [];
    for (const [i, share] of this.shares.entries()) {
      const holding = this.held.get(share.lease);
      if (!holding || !mine(i)) continue;
      try {
        const grant = await this.acquire(share.lease);
        if (grant) this.held.set(share.lease, grant);
        else lost.push(share);
      } catch (error) {
        this.logger?.(`delivery share ${share.lease}: not renewed: ${(error as Error).message}`);
      }
    }
    for (const share of lost) await this.giveUp(share, false);
    for (const [i, share] of this.shares.entries()) {
      const holding = this.held.get(share.lease);
      if (!holding) continue;
      if (!mine(i)) await this.giveUp(share, true);
      else if (this.lapsing(holding)) await this.giveUp(share, false);
    }
    for (const [i, share] of this.shares.entries()) {
      if (!mine(i) || this.held.has(share.lease)) continue;
      let grant: LeaseGrant | null;
      try {
        grant = await this.acquire(share.lease);
      } catch (error) {
        this.logger?.(`delivery share ${share.lease}: not taken: ${(error as Error).message}`);
        continue;
      }
      if (!grant) continue;
      this.held.set(share.lease, grant);
      try {
        await share.start(grant);
      } catch (error) {
        this.logger?.(`delivery share ${share.lease}: not started: ${(error as Error).message}`);
        await this.giveUp(share, true);
      }
    }
  }

  private acquire(lease: string): Promise<LeaseGrant | null> {
    return this.leases.acquire(lease, this.owner, this.timing.ttlMs, this.clock.now().getTime());
  }

  /** Stops a share and, when its lease is still this server's, lets it go. */
  private async giveUp(share: Share, release: boolean): Promise<void> {
    this.held.delete(share.lease);
    await share.stop().catch((e: Error) => this.logger?.(`delivery share ${share.lease}: stop: ${e.message}`));
    if (release) await this.leases.release(share.lease, this.owner).catch((e: Error) => this.logger?.(`delivery share ${share.lease}: not released: ${e.message}`));
  }

  /** This server's rank among the live members and how many there are; undefined while it has no member slot. */
  private async members(): Promise<{ rank: number; count: number } | undefined> {
    if (this.slot !== undefined && !(await this.acquire(memberLease(this.slot)))) this.slot = undefined;
    const now = this.clock.now().getTime();
    const live: number[] = [];
    for (let slot = 0; slot < MAX_MEMBERS; slot++) {
      if (slot === this.slot) {
        live.push(slot);
        continue;
      }
      const lease = await this.leases.read(memberLease(slot));
      if (lease && lease.expiresAt > now) {
        live.push(slot);
      } else if (this.slot === undefined && (await this.acquire(memberLease(slot)))) {
        this.slot = slot;
        live.push(slot);
      }
    }
    if (this.slot === undefined) return undefined;
    return { rank: live.indexOf(this.slot), count: live.length };
  }
}
