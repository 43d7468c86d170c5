import { Inject, Injectable } from '@nestjs/common';
import { isIP } from 'node:net';
import { CONFIG, type Config, type SignInSettings } from '../../config.js';
import { ATTEMPT_COUNTERS, type AttemptCounters, type CounterHit } from '../../infrastructure/attempt-counters/attempt-counters.port.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { Turns } from '../../shared/turns.js';

/** The longest wait of a username, however many failures came before. */
const MAX_WAIT_MS = 15 * 60_000;
/** A username's count no attempt has touched for this long starts again from zero. */
const FORGET_AFTER_MS = 24 * 3600_000;

/** Who is signing in: the tenant, the username typed, the nonce of a device cookie for it, and the client's address. */
export interface SignInSubject {
  tenantId: string;
  username: string;
  device?: string;
  address?: string;
}

/** An attempt refused without checking the password: how long to wait, and which limit said so. */
export interface Refusal {
  wait: number;
  limit: 'username' | 'address' | 'tenant';
}

/**
 * Slows password guessing at the sign-in page (RFC 6749 §10.10, OWASP ASVS 2.2.1) with counts of
 * failed sign-ins kept in the shared store, so they hold across servers and restarts:
 *
 * - per username: after `usernameFailures` failures, each next attempt waits twice as long as
 *   the one before (1 s, 2 s, 4 s, ... up to 15 min) after the last; a success clears it.
 *   Unknown usernames count alike, so a wait says nothing about which exist. A browser with a
 *   device cookie for the username is counted on its own, until it has failed as often itself.
 * - per address and per tenant (spraying: many usernames from one address, or from many): at
 *   most `addressFailures` / `tenantFailures` failures in a window, then attempts wait for the
 *   window's end, except from a browser with a device cookie for the username it signs in as.
 *
 * Counters are keyed by keyed hashes, never by what was typed; each expires, and a new one is
 * made only by a failure the limits let through, so the tenant limit bounds how many a tenant's
 * sign-in page can add per window. The attempts on one count take turns within a server, so
 * parallel guesses cannot all pass before the first one fails.
 */
@Injectable()
export class SignInLimits {
  private readonly turns = new Turns();
  private readonly settings: SignInSettings;

  constructor(
    @Inject(ATTEMPT_COUNTERS) private readonly counters: AttemptCounters,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
    @Inject(CONFIG) config: Config,
  ) {
    this.settings = config.signIn;
  }

  /**
   * Runs `check` (which says whether the password was right) unless a limit holds the attempt
   * up; counts a failure, or clears the count on a success. Returns what `check` returned, or
   * the refusal when it did not run.
   */
  async attempt<R extends { ok: boolean }>(s: SignInSubject, now: () => number, check: () => Promise<R>): Promise<R | Refusal> {
    const { usernameFailures, addressFailures, tenantFailures, windowSeconds } = this.settings;
    const lower = s.username.toLowerCase();
    const usernameKey = this.key('username', s.tenantId, lower);
    const deviceKey = s.device ? this.key('device', s.tenantId, lower, s.device) : undefined;
    const addressKey = s.address ? this.key('address', addressBlock(s.address)) : undefined;
    const tenantKey = this.key('tenant', s.tenantId);
    const trusted = deviceKey !== undefined && ((await this.counters.read([deviceKey], now())).get(deviceKey)?.count ?? 0) < usernameFailures;
    const counted = trusted ? deviceKey : usernameKey;
    const endTurn = await this.turns.take(counted);
    try {
      const t = now();
      const read = await this.counters.read([counted, tenantKey, ...(addressKey ? [addressKey] : [])], t);
      if (!trusted) {
        const tenant = read.get(tenantKey);
        if (tenant && tenant.count >= tenantFailures) return { wait: tenant.expires - t, limit: 'tenant' };
        const address = addressKey ? read.get(addressKey) : undefined;
        if (address && address.count >= addressFailures) return { wait: address.expires - t, limit: 'address' };
      }
      const own = read.get(counted);
      const count = own?.count ?? 0;
      const wait = own && count >= usernameFailures ? Math.min(2 ** (count - usernameFailures) * 1000, MAX_WAIT_MS) - (t - own.last) : 0;
      if (wait > 0) return { wait, limit: 'username' };
      const result = await check();
      if (result.ok) {
        if (own) await this.counters.clear([counted]);
      } else {
        const windowMs = windowSeconds * 1000;
        const hits: CounterHit[] = [
          { key: counted, ttlMs: FORGET_AFTER_MS, sliding: true },
          { key: tenantKey, ttlMs: windowMs, sliding: false },
          ...(addressKey ? [{ key: addressKey, ttlMs: windowMs, sliding: false }] : []),
        ];
        // Before the turn ends: the next attempt on this count must see this failure.
        await this.counters.hit(hits, now());
      }
      return result;
    } finally {
      endTurn();
    }
  }

  private key(...parts: string[]): string {
    return this.keys.keyedHash('sign-in counter', JSON.stringify(parts));
  }
}

/**
 * The block an address is counted in: an IPv4 address alone, an IPv6 address by its /64, the
 * smallest network a site is usually given (RFC 6177), since anyone holding one can use any
 * address in it.
 */
export function addressBlock(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head, tail] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) is two groups; the first four groups never hold it.
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
