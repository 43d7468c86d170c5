import { setBounded } from '../../shared/bounded-map.js';

/** Failures of one key recorded per window; the others are only counted. */
const RECORDED_PER_WINDOW = 10;
const WINDOW_MS = 60_000;
const KEPT = 10_000;

/**
 * How many failures of one key (a client) are worth a durable event: the first ten of each
 * minute. A flood of wrong secrets then costs the log ten events a minute per client, not one
 * per request, and the next recorded failure says how many went unrecorded before it.
 */
export class FailureBudget {
  private readonly keys = new Map<string, { since: number; recorded: number; unrecorded: number }>();

  /** Whether to record this failure, and if so how many went unrecorded since the last one recorded. */
  spend(key: string, now: number): { record: false } | { record: true; unrecordedBefore: number } {
    const last = this.keys.get(key);
    const current = last && now - last.since < WINDOW_MS ? last : { since: now, recorded: 0, unrecorded: last?.unrecorded ?? 0 };
    if (current.recorded >= RECORDED_PER_WINDOW) {
      current.unrecorded++;
      return { record: false };
    }
    setBounded(this.keys, key, { since: current.since, recorded: current.recorded + 1, unrecorded: 0 }, KEPT);
    return { record: true, unrecordedBefore: current.unrecorded };
  }
}
