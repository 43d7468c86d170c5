import type { Clock } from '../infrastructure/nest/clock.js';
import type { LeaseFence, Leases } from '../infrastructure/read-store/lease.port.js';
import { LeaseHolder } from '../infrastructure/read-store/lease-holder.js';

/** The lease whose holder turns the log into poll SETs. */
export const SSF_FOLLOWER_LEASE = 'ssf-follower';

/** What the lease starts and stops: the SSF follower (ssf-follower.ts). */
export interface LeasedFollower {
  start(fence: LeaseFence): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Several servers on one store: the poll SETs are made by one of them at a time, the holder
 * of the `ssf-follower` lease (LeaseHolder). Were each to follow, a server behind the others
 * would store again a SET that a receiver had already acknowledged, and it would be delivered
 * twice. The new holder starts from the stored checkpoint, and its commits carry the lease's
 * fence; a server that stops stops following (its checkpoint is stored with its last SETs)
 * before letting go.
 */
export class SsfFollowerLease extends LeaseHolder {
  constructor(leases: Leases, clock: Clock, owner: string, follower: LeasedFollower, ttlMs: number, logger?: (message: string) => void) {
    super(leases, SSF_FOLLOWER_LEASE, owner, ttlMs, () => clock.now().getTime(), {
      take: (grant) => follower.start({ lease: SSF_FOLLOWER_LEASE, fence: grant.fence }),
      leave: () => follower.stop().catch((e: Error) => logger?.(`shared signals follower: stop: ${e.message}`)),
    });
    this.logger = logger;
  }
}
