import type { DomainEvent } from '../shared/decider.js';
import type { SigningAlg } from '../tenant/tenant.events.js';

/**
 * A signing key pair; the private half only as ciphertext under the key-encryption key.
 * `lowS`: an ES256 key whose signatures all have s in the lower half, so only those verify
 * (keys made before this flag signed with either half, and keep accepting both).
 */
export type SigningKeyGenerated = DomainEvent<
  'SigningKeyGenerated',
  { tenantId: string; kid: string; alg: SigningAlg; publicJwk: Record<string, unknown>; encryptedPrivateKey: string; createdAt: string; lowS?: true }
>;
export type SigningKeyEvent = SigningKeyGenerated;
