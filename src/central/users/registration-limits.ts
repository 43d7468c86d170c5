import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, type Config } from '../../config.js';
import { addressBlock } from '../../edge/login/sign-in-limits.js';
import { ATTEMPT_COUNTERS, type AttemptCounters } from '../../infrastructure/attempt-counters/attempt-counters.port.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { Turns } from '../../shared/turns.js';

/** Self-service sign-ups one address (an IPv6 /64) may make at one tenant per window. */
export const REGISTRATIONS_PER_ADDRESS = 5;

/**
 * Bounds self-service sign-ups per source address, on the shared attempt counters of the
 * sign-in limits (so the budget holds across servers and restarts) and in their window
 * (SIGNIN_WINDOW). Every well-formed attempt counts, a taken username too: the budget also
 * bounds how fast usernames can be probed.
 */
@Injectable()
export class RegistrationLimits {
  private readonly turns = new Turns();
  private readonly windowMs: number;

  constructor(
    @Inject(ATTEMPT_COUNTERS) private readonly counters: AttemptCounters,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
    @Inject(CONFIG) config: Config,
  ) {
    this.windowMs = config.signIn.windowSeconds * 1000;
  }

  /** Takes one sign-up from the address's budget; when it is spent, the milliseconds until the window ends instead. */
  async take(tenantId: string, address: string | undefined, now: () => number): Promise<{ waitMs: number } | undefined> {
    // Keyed hash: the counters never hold an address in usable form.
    const key = this.keys.keyedHash('registration counter', JSON.stringify([tenantId, address ? addressBlock(address) : '']));
    const endTurn = await this.turns.take(key);
    try {
      const t = now();
      const counter = (await this.counters.read([key], t)).get(key);
      if (counter && counter.count >= REGISTRATIONS_PER_ADDRESS) return { waitMs: counter.expires - t };
      await this.counters.hit([{ key, ttlMs: this.windowMs, sliding: false }], t);
      return undefined;
    } finally {
      endTurn();
    }
  }
}
