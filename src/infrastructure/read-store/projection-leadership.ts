import { randomUUID } from 'node:crypto';
import type { LeaseGrant, Leases } from './lease.port.js';
import { LeaseHolder } from './lease-holder.js';
import type { ProjectionRunner, ViewVersionChange } from './projection-runner.js';
import type { ViewSync } from './view-sync.js';

/** The lease whose holder folds the log into the views. */
export const PROJECTIONS_LEASE = 'projections';

/**
 * Makes one process per database the projection runner: the holder of the `projections`
 * lease (LeaseHolder). A process that takes it starts folding from the stored checkpoints,
 * under the lease's fence, and one that no longer holds it stops and reads the views as the
 * others do (ViewSync). The fence is what makes this safe: a holder that stalled past its TTL
 * and was replaced finds its next commit refused by the store, in the commit's own
 * transaction (a check before the commit could pass and then be overtaken by the takeover).
 */
export class ProjectionLeadership {
  /** This process, as the lease knows it. */
  readonly owner = randomUUID();
  private readonly holder: LeaseHolder;
  private closed = false;
  private log?: (message: string) => void;
  /** Told of the views a newly started runner found at another version. */
  onVersionChanges?: (changes: ViewVersionChange[]) => void;

  /** `now`: epoch ms on the injected clock. */
  constructor(
    leases: Leases,
    private readonly runner: ProjectionRunner,
    private readonly sync: ViewSync,
    now: () => number,
    ttlMs: number,
  ) {
    this.holder = new LeaseHolder(leases, PROJECTIONS_LEASE, this.owner, ttlMs, now, { take: (grant) => this.promote(grant), leave: (why) => this.demote(why) });
    runner.onLeaseLost = (fence) => void this.lost(fence);
  }

  set logger(logger: ((message: string) => void) | undefined) {
    this.log = logger;
    this.holder.logger = logger;
  }

  /** Whether this process folds the log now. */
  get leading(): boolean {
    return this.holder.holding;
  }

  /** Reads the views as a follower, then competes for the lease: the first round now, the next ones on a timer. */
  async start(): Promise<void> {
    await this.sync.follow();
    await this.holder.start();
  }

  /** One round: renew or take the lease, and start or stop folding to match. */
  tick(): Promise<void> {
    return this.holder.turn();
  }

  /** The runner's commit under `fence` was refused. */
  lost(fence: number): Promise<void> {
    return this.holder.lost(fence);
  }

  /** Stops competing; the holder stores its checkpoints and lets the lease go, so a standby takes over at its next round. */
  async stop(): Promise<void> {
    this.closed = true;
    await this.holder.stop();
    await this.runner.stop();
    this.sync.stop();
  }

  private async promote(grant: LeaseGrant): Promise<void> {
    this.sync.lead();
    const changes = await this.runner.start({ lease: PROJECTIONS_LEASE, fence: grant.fence });
    this.log?.(`projections: this process folds the log (lease fence ${grant.fence})`);
    if (changes.length) this.onVersionChanges?.(changes);
  }

  private async demote(why: 'lost' | 'stop'): Promise<void> {
    if (why === 'stop') return this.runner.stop();
    await this.runner.abandon();
    if (!this.closed) await this.sync.follow();
    this.log?.('projections: another process folds the log; this one reads the views');
  }
}
