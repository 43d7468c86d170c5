import { setBounded } from './bounded-map.js';

const WINDOW_MS = 60_000;
const KEPT = 10_000;

/**
 * How many failures of one key (a client, a tenant's sign-in page) are worth a durable event:
 * the first `perMinute` of each minute. A flood of wrong secrets or made-up usernames then
 * costs the log that many events a minute per key, not one per request, and the next
 * recorded failure says how many went unrecorded before it.
 */
export class FailureBudget {
  private readonly keys = new Map<string, { since: number; recorded: number; unrecorded: number }>();

  constructor(private readonly perMinute: number) {}

  /** The key's current minute: the one under way, or a new one (carrying the count left unrecorded). */
  private window(key: string, now: number): { since: number; recorded: number; unrecorded: number } {
    const last = this.keys.get(key);
    return last && now - last.since < WINDOW_MS ? last : { since: now, recorded: 0, unrecorded: last?.unrecorded ?? 0 };
  }

  /** Whether a failure of `key` would be recorded now (spends nothing). */
  open(key: string, now: number): boolean {
    return this.window(key, now).recorded < this.perMinute;
  }

  /** Whether to record this failure, and if so how many went unrecorded since the last one recorded. */
  spend(key: string, now: number): { record: false } | { record: true; unrecordedBefore: number } {
    const current = this.window(key, now);
    if (current.recorded >= this.perMinute) {
      current.unrecorded++;
      return { record: false };
    }
    setBounded(this.keys, key, { since: current.since, recorded: current.recorded + 1, unrecorded: 0 }, KEPT);
    return { record: true, unrecordedBefore: current.unrecorded };
  }
}

/** A log line written at most once a minute; the next one written says how many were held back. */
export class OncePerMinute {
  private readonly budget = new FailureBudget(1);

  constructor(private readonly write: (line: string) => void) {}

  log(line: string, now = Date.now()): void {
    const report = this.budget.spend('', now);
    if (report.record) this.write(report.unrecordedBefore ? `${line} (and ${report.unrecordedBefore} more since the last one)` : line);
  }
}
