import { Injectable } from '@nestjs/common';
import { setBounded } from '../../shared/bounded-map.js';
import { Turns } from '../../shared/turns.js';

/** Failed sign-ins one username may have before each next attempt must wait. */
export const FREE_FAILURES = 5;
/** The longest wait, however many failures came before. */
const MAX_WAIT_MS = 15 * 60_000;
/** A count no attempt has touched for this long starts again from zero. */
const FORGET_AFTER_MS = 24 * 3600_000;
const KEPT = 100_000;

/**
 * Slows password guessing at the sign-in page (RFC 6749 §10.10, OWASP ASVS 2.2.1). After
 * FREE_FAILURES failed attempts for one username, each next attempt must wait twice as long
 * as the one before (1 s, 2 s, 4 s, ... up to 15 min) after the last; a success clears the
 * count. Unknown usernames count alike, so a wait says nothing about which usernames exist.
 * The attempts for one username take turns, so parallel guesses cannot all pass before the
 * first one fails, while parallel sign-ins with the right password all succeed. Kept in this
 * process's memory.
 */
@Injectable()
export class LoginThrottle {
  private readonly failures = new Map<string, { count: number; at: number }>();
  private readonly turns = new Turns();

  /**
   * Runs `check` for `key` in turn with the other attempts for it, unless `key` must wait
   * first; `check` says whether the password was right. Returns what `check` returned, or
   * the milliseconds still to wait when it did not run.
   */
  async attempt<R extends { ok: boolean }>(key: string, now: () => number, check: () => Promise<R>): Promise<R | { wait: number }> {
    const endTurn = await this.turns.take(key);
    try {
      const last = this.failures.get(key);
      const count = this.count(key, now());
      const wait = count >= FREE_FAILURES ? Math.min(2 ** (count - FREE_FAILURES) * 1000, MAX_WAIT_MS) - (now() - last!.at) : 0;
      if (wait > 0) return { wait };
      const result = await check();
      if (result.ok) this.failures.delete(key);
      else setBounded(this.failures, key, { count: count + 1, at: now() }, KEPT);
      return result;
    } finally {
      endTurn();
    }
  }

  /** Whether `key` has used up its failures without waiting. */
  exhausted(key: string, now: number): boolean {
    return this.count(key, now) >= FREE_FAILURES;
  }

  private count(key: string, now: number): number {
    const last = this.failures.get(key);
    return last && now - last.at < FORGET_AFTER_MS ? last.count : 0;
  }
}
