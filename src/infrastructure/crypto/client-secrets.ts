import type { SecretDigest } from '../../domain/client/client.events.js';
import { constantTimeEqual, randomToken, sha256 } from './hashing.js';
import type { KeyEncryption } from './key-encryption.js';

/**
 * Client secrets as the log keeps them: an HMAC-SHA-256 under a key derived from
 * KEY_ENCRYPTION_KEY, of the tenant, the client id and the secret. A copy of the log without
 * that key cannot test guesses of a weak secret, and equal secrets of two clients do not show
 * as equal. A fast hash on purpose: a slow KDF on the token endpoint only buys a denial of service.
 */
export class ClientSecrets {
  private readonly hmac: (value: string) => string;

  constructor(keys: KeyEncryption) {
    this.hmac = keys.keyedHasher('client secret');
  }

  /** 256 random bits (base64url), for a client registered without a secret of its own. */
  generate(): string {
    return randomToken(32);
  }

  digest(tenantId: string, clientId: string, secret: string): SecretDigest {
    return { scheme: 'hmac-sha256', hash: this.hmac(input(tenantId, clientId, secret)) };
  }

  /** Whether `secret` is the one `stored` was made from, compared in constant time. */
  verify(tenantId: string, clientId: string, secret: string, stored: SecretDigest): boolean {
    switch (stored.scheme) {
      case 'hmac-sha256':
        return constantTimeEqual(this.hmac(input(tenantId, clientId, secret)), stored.hash);
      case 'sha256':
        return constantTimeEqual(sha256(secret).slice('sha256:'.length), stored.hash);
      default:
        // A scheme this build does not know matches nothing.
        return false;
    }
  }
}

// Client ids exclude '\n' (client.decider.ts) and tenant ids too, so the input splits one way only.
const input = (tenantId: string, clientId: string, secret: string) => `${tenantId}\n${clientId}\n${secret}`;
