import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, type Config, type SignInSettings } from '../../config.js';
import { ATTEMPT_COUNTERS, type AttemptCounters } from '../../infrastructure/attempt-counters/attempt-counters.port.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { Turns } from '../../shared/turns.js';
import { addressBlock } from '../login/sign-in-limits.js';

/** A user code held up: how long to wait (ms), and which limit said so. */
export interface UserCodeRefusal {
  wait: number;
  limit: 'address' | 'tenant';
}

/**
 * RFC 8628 §5.1: user codes are short, so guessing them is slowed: wrong codes are counted per
 * address (by block, as at sign-in) and per tenant in the shared attempt counters (across
 * servers and restarts), with the sign-in page's window and limits; beyond either, codes are
 * not looked at until the window ends.
 */
@Injectable()
export class UserCodeLimits {
  private readonly turns = new Turns();
  private readonly settings: SignInSettings;

  constructor(
    @Inject(ATTEMPT_COUNTERS) private readonly counters: AttemptCounters,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
    @Inject(CONFIG) config: Config,
  ) {
    this.settings = config.signIn;
  }

  /** Runs `check` (whether the code names a pending authorization) unless a limit holds it up; counts a wrong code. */
  async attempt<R extends { ok: boolean }>(tenantId: string, address: string | undefined, now: () => number, check: () => Promise<R>): Promise<R | UserCodeRefusal> {
    const { addressFailures, tenantFailures, windowSeconds } = this.settings;
    const tenantKey = this.key('tenant', tenantId);
    const addressKey = address ? this.key('address', tenantId, addressBlock(address)) : undefined;
    // One turn per address (or per tenant without one), so parallel guesses cannot all pass before the first is counted.
    const endTurn = await this.turns.take(addressKey ?? tenantKey);
    try {
      const t = now();
      const read = await this.counters.read([tenantKey, ...(addressKey ? [addressKey] : [])], t);
      const tenant = read.get(tenantKey);
      if (tenant && tenant.count >= tenantFailures) return { wait: tenant.expires - t, limit: 'tenant' };
      const own = addressKey ? read.get(addressKey) : undefined;
      if (own && own.count >= addressFailures) return { wait: own.expires - t, limit: 'address' };
      const result = await check();
      if (!result.ok) {
        const ttlMs = windowSeconds * 1000;
        await this.counters.hit([{ key: tenantKey, ttlMs, sliding: false }, ...(addressKey ? [{ key: addressKey, ttlMs, sliding: false }] : [])], now());
      }
      return result;
    } finally {
      endTurn();
    }
  }

  private key(...parts: string[]): string {
    return this.keys.keyedHash('user-code counter', JSON.stringify(parts));
  }
}
