/** One counter as read: how many hits, the time of the last, and when it is forgotten (epoch ms). */
export interface Counter {
  count: number;
  last: number;
  expires: number;
}

/** One hit on a counter. */
export interface CounterHit {
  key: string;
  /** How long the counter lives (ms). */
  ttlMs: number;
  /**
   * `true`: every hit moves the expiry to `now + ttlMs` (a count forgotten after a quiet spell);
   * `false`: the first hit fixes it (a window: the count starts again once it has passed).
   */
  sliding: boolean;
}

/**
 * Counters of attempts (failed sign-ins per username, per address, per tenant), shared by every
 * server of a deployment and kept across restarts. Every counter expires: a key nobody hits
 * again is gone after its ttl, so made-up keys cost storage only for a while and never push
 * out a live one. Keys are the caller's (keyed hashes, never what a user typed).
 */
export interface AttemptCounters {
  /** The live counters among `keys` at `now` (an expired one reads as absent). */
  read(keys: readonly string[], now: number): Promise<Map<string, Counter>>;
  /** Adds one to each counter atomically (a counter expired at `now` starts again from one). */
  hit(hits: readonly CounterHit[], now: number): Promise<void>;
  /** Forgets the counters. */
  clear(keys: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export const ATTEMPT_COUNTERS = Symbol('ATTEMPT_COUNTERS');
