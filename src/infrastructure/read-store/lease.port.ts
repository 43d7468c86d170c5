/** A lease as stored: who holds it, until when, and its fencing number. */
export interface LeaseGrant {
  name: string;
  owner: string;
  /**
   * Increases every time the lease is taken by a holder that did not hold it live: another
   * owner, or the same one after it had lapsed or been released. A renewal keeps it. A write
   * made under the lease carries it, so that the store can refuse the writes of a holder
   * that has been replaced (see `LeaseLostError`).
   */
  fence: number;
  /** Epoch milliseconds on the callers' clock; the lease is free from then on. */
  expiresAt: number;
}

/**
 * Named leases with an owner and a time to live, kept in the shared read store so that the
 * processes of one deployment agree on which of them does a job only one may do (fold the
 * log into the views, say). Each call is atomic. Time is the caller's (`now`, epoch ms, from
 * the injected Clock): every process must share a clock within a small part of the TTL.
 */
export interface Leases {
  /**
   * Takes the lease for `owner` until `now + ttlMs` when it is free, expired at `now`, or
   * already held by `owner` (a renewal, which keeps the fence). Returns the grant, or null
   * when another owner holds it live.
   */
  acquire(name: string, owner: string, ttlMs: number, now: number): Promise<LeaseGrant | null>;
  /** Lets the lease go at once if `owner` holds it (its fence stays, so the next holder gets a higher one). */
  release(name: string, owner: string): Promise<void>;
  /** The lease as stored, live or not; null when never taken. */
  read(name: string): Promise<LeaseGrant | null>;
  close(): Promise<void>;
}

/** The lease a write is made under: the store refuses the write unless the lease still has this fence. */
export interface LeaseFence {
  lease: string;
  fence: number;
}

/** A write made under a lease that has since passed to another holder (its fence moved on). */
export class LeaseLostError extends Error {
  constructor(lease: string, fence: number) {
    super(`lease ${lease} has moved on from fence ${fence}: the write was refused`);
    this.name = 'LeaseLostError';
  }
}

export const LEASES = Symbol('LEASES');
