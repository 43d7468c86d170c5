import type { SecretDigest, TokenEndpointAuthMethod } from '../../domain/client/client.events.js';
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

  constructor(private readonly keys: KeyEncryption) {
    this.hmac = keys.keyedHasher('client secret');
  }

  /**
   * 256 random bits (base64url), for a client registered without a secret of its own; 512 for
   * a client_secret_jwt client, whose secret is the HMAC key itself and must be as long as
   * HS512's hash output (RFC 7518 §3.2).
   */
  generate(method?: TokenEndpointAuthMethod): string {
    return randomToken(method === 'client_secret_jwt' ? 64 : 32);
  }

  /**
   * How a client's new secret is kept: its digest, and for a client_secret_jwt client the secret
   * itself sealed for its tenant and client (a sealed secret copied to another client does not
   * open), since checking an assertion's HMAC needs it.
   */
  keep(tenantId: string, clientId: string, secret: string, method: TokenEndpointAuthMethod): SecretDigest {
    const digest = this.digest(tenantId, clientId, secret);
    return method === 'client_secret_jwt' ? { ...digest, sealed: this.keys.seal('client-secret', secret, sealContext(tenantId, clientId)) } : digest;
  }

  /** The secret a client_secret_jwt client's digest keeps sealed, or undefined (none, or it does not open here). */
  open(tenantId: string, clientId: string, stored: SecretDigest | undefined): string | undefined {
    if (!stored?.sealed) return undefined;
    try {
      return this.keys.open('client-secret', stored.sealed, sealContext(tenantId, clientId));
    } catch {
      return undefined;
    }
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
const sealContext = (tenantId: string, clientId: string) => `${tenantId}\n${clientId}`;
