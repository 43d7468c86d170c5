import type { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { constantTimeEqual } from '../../infrastructure/crypto/hashing.js';

/** How long one nonce is issued for; a nonce is taken for this long after, too. */
export const NONCE_PERIOD = 300;

/**
 * DPoP server nonces (RFC 9449 §8), kept nowhere: a nonce is the number of a time window and
 * an HMAC of it and the tenant, under a key derived from KEY_ENCRYPTION_KEY, which every
 * server of a deployment shares. A nonce of the current or the previous window is accepted,
 * so one lives between one and two periods; a forged or another tenant's nonce does not verify.
 * A nonce may be used by several proofs: replay is the proofs' `jti`'s to stop.
 */
export class DpopNonces {
  private readonly hmac: (value: string) => string;

  constructor(keys: KeyEncryption) {
    this.hmac = keys.keyedHasher('dpop nonce');
  }

  /** The nonce to hand out at `now` (seconds). */
  current(tenantId: string, now: number): string {
    return this.of(tenantId, Math.floor(now / NONCE_PERIOD));
  }

  valid(tenantId: string, nonce: unknown, now: number): boolean {
    if (typeof nonce !== 'string') return false;
    const window = Math.floor(now / NONCE_PERIOD);
    const dot = nonce.indexOf('.');
    const claimed = Number(nonce.slice(0, dot));
    if (dot < 0 || (claimed !== window && claimed !== window - 1)) return false;
    return constantTimeEqual(nonce, this.of(tenantId, claimed));
  }

  private of(tenantId: string, window: number): string {
    return `${window}.${this.hmac(`${tenantId}\n${window}`)}`;
  }
}
