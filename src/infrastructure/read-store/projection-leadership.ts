import { randomUUID } from 'node:crypto';
import type { LeaseGrant, Leases } from './lease.port.js';
import type { ProjectionRunner, ViewVersionChange } from './projection-runner.js';
import type { ViewSync } from './view-sync.js';

/** The lease whose holder folds the log into the views. */
export const PROJECTIONS_LEASE = 'projections';

/**
 * Makes one process per database the projection runner: the holder of the `projections`
 * lease. Each round (`tick`, every third of the TTL) renews the lease, or takes it when it
 * is free or has expired (its holder died); a process that takes it starts folding from
 * the stored checkpoints, under the lease's fence, and one that no longer holds it stops
 * and reads the views as the others do (ViewSync). The fence is what makes this safe: a
 * holder that stalled past its TTL and was replaced finds its next commit refused by the
 * store, in the commit's own transaction (a check before the commit could pass and then be
 * overtaken by the takeover).
 */
export class ProjectionLeadership {
  /** This process, as the lease knows it. */
  readonly owner = randomUUID();
  private grant?: LeaseGrant;
  private timer?: NodeJS.Timeout;
  /** Rounds and hand-overs, one at a time. */
  private turn: Promise<unknown> = Promise.resolve();
  private closed = false;
  logger?: (message: string) => void;
  /** Told of the views a newly started runner found at another version. */
  onVersionChanges?: (changes: ViewVersionChange[]) => void;

  /** `now`: epoch ms on the injected clock. */
  constructor(
    private readonly leases: Leases,
    private readonly runner: ProjectionRunner,
    private readonly sync: ViewSync,
    private readonly now: () => number,
    private readonly ttlMs: number,
  ) {
    // Only for the grant whose commit was refused: the same process may have taken the lease
    // again (a higher fence) meanwhile, and its new runner must go on.
    runner.onLeaseLost = (fence) => void this.serially(async () => (this.grant?.fence === fence ? this.demote() : undefined));
  }

  /** Whether this process folds the log now. */
  get leading(): boolean {
    return this.grant !== undefined;
  }

  /** Reads the views as a follower, then competes for the lease: the first round now, the next ones on a timer. */
  async start(): Promise<void> {
    await this.sync.follow();
    await this.tick();
    this.timer = setInterval(() => void this.tick().catch((e: unknown) => this.logger?.(`projections lease: ${(e as Error).message}`)), Math.max(1, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  /** One round: renew or take the lease, and start or stop folding to match. */
  tick(): Promise<void> {
    return this.serially(async () => {
      if (this.closed) return;
      const now = this.now();
      let grant: LeaseGrant | null;
      try {
        grant = await this.leases.acquire(PROJECTIONS_LEASE, this.owner, this.ttlMs, now);
      } catch (error) {
        // The store did not answer: go on folding while the lease surely lasts; past that, a
        // successor may hold it.
        this.logger?.(`projections lease not renewed: ${(error as Error).message}`);
        if (this.grant && now >= this.grant.expiresAt) await this.demote();
        return;
      }
      if (grant && grant.fence === this.grant?.fence) {
        this.grant = grant;
        return;
      }
      if (this.grant) await this.demote();
      if (grant) await this.promote(grant);
    });
  }

  /** Stops competing; the holder stores its checkpoints and lets the lease go, so a standby takes over at its next round. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.serially(async () => {
      this.closed = true;
      const held = this.grant;
      this.grant = undefined;
      await this.runner.stop();
      this.sync.stop();
      if (held) await this.leases.release(PROJECTIONS_LEASE, this.owner).catch(() => undefined);
    });
  }

  private async promote(grant: LeaseGrant): Promise<void> {
    this.sync.lead();
    this.grant = grant;
    try {
      const changes = await this.runner.start({ lease: PROJECTIONS_LEASE, fence: grant.fence });
      this.logger?.(`projections: this process folds the log (lease fence ${grant.fence})`);
      if (changes.length) this.onVersionChanges?.(changes);
    } catch (error) {
      await this.demote();
      throw error;
    }
  }

  private async demote(): Promise<void> {
    if (!this.grant) return;
    this.grant = undefined;
    await this.runner.abandon();
    if (!this.closed) await this.sync.follow();
    this.logger?.('projections: another process folds the log; this one reads the views');
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.turn.then(work, work);
    this.turn = next.catch(() => undefined);
    return next;
  }
}
