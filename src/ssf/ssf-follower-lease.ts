import type { Clock } from '../infrastructure/nest/clock.js';
import type { LeaseFence, LeaseGrant, Leases } from '../infrastructure/read-store/lease.port.js';

/** The lease whose holder turns the log into poll SETs. */
export const SSF_FOLLOWER_LEASE = 'ssf-follower';

/** What the lease starts and stops: the SSF follower (ssf-follower.ts). */
export interface LeasedFollower {
  start(fence: LeaseFence): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Several servers on one store: the poll SETs are made by one of them at a time, the holder
 * of the `ssf-follower` lease. Were each to follow, a server behind the others would store
 * again a SET that a receiver had already acknowledged, and it would be delivered twice.
 * Each turn (every third of the TTL) renews the lease, or takes it when it is free or expired;
 * the new holder starts from the stored checkpoint, and its commits carry the lease's fence,
 * so that a holder that stalled past its TTL cannot write once it was replaced. A server that
 * stops stops following (its checkpoint is stored with its last SETs) before letting go.
 */
export class SsfFollowerLease {
  private grant?: LeaseGrant;
  private timer?: NodeJS.Timeout;
  /** Turns and hand-overs, one at a time. */
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly leases: Leases,
    private readonly clock: Clock,
    readonly owner: string,
    private readonly follower: LeasedFollower,
    private readonly ttlMs: number,
    private readonly logger?: (message: string) => void,
  ) {}

  /** Whether this server follows now. */
  get holding(): boolean {
    return this.grant !== undefined;
  }

  start(): Promise<void> {
    this.timer = setInterval(() => void this.turn(), Math.max(1, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
    return this.turn();
  }

  /** One turn: renew or take the lease, and start or stop following to match. */
  turn(): Promise<void> {
    return this.serially(async () => {
      if (this.closed) return;
      const now = this.clock.now().getTime();
      let grant: LeaseGrant | null;
      try {
        grant = await this.leases.acquire(SSF_FOLLOWER_LEASE, this.owner, this.ttlMs, now);
      } catch (error) {
        // The store did not answer: go on while the lease surely lasts; past that, another may hold it.
        this.logger?.(`shared signals lease not renewed: ${(error as Error).message}`);
        if (this.grant && now >= this.grant.expiresAt) await this.giveUp();
        return;
      }
      if (grant && grant.fence === this.grant?.fence) {
        this.grant = grant;
        return;
      }
      await this.giveUp();
      if (!grant) return;
      this.grant = grant;
      try {
        await this.follower.start({ lease: SSF_FOLLOWER_LEASE, fence: grant.fence });
      } catch (error) {
        this.logger?.(`shared signals follower not started: ${(error as Error).message}`);
        await this.giveUp();
        await this.leases.release(SSF_FOLLOWER_LEASE, this.owner).catch(() => undefined);
      }
    });
  }

  /** The follower's commit was refused: another server holds the lease now. */
  lost(): Promise<void> {
    return this.serially(() => this.giveUp());
  }

  /** Stops following and lets the lease go (`release: false` keeps it until it expires, as a server that dies does). */
  async stop(release = true): Promise<void> {
    clearInterval(this.timer);
    await this.serially(async () => {
      this.closed = true;
      const held = this.grant;
      await this.giveUp();
      if (held && release) await this.leases.release(SSF_FOLLOWER_LEASE, this.owner).catch(() => undefined);
    });
  }

  private async giveUp(): Promise<void> {
    if (!this.grant) return;
    this.grant = undefined;
    await this.follower.stop().catch((e: Error) => this.logger?.(`shared signals follower: stop: ${e.message}`));
  }

  private serially(work: () => Promise<void>): Promise<void> {
    const next = this.running.then(work, work);
    this.running = next.catch(() => undefined);
    return next;
  }
}
