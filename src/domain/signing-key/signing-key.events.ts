import type { DomainEvent } from '../shared/decider.js';
import type { SigningAlg } from '../tenant/tenant.events.js';

/** A signing key pair; the private half only as ciphertext under the key-encryption key. */
export type SigningKeyGenerated = DomainEvent<
  'SigningKeyGenerated',
  { tenantId: string; kid: string; alg: SigningAlg; publicJwk: Record<string, unknown>; encryptedPrivateKey: string; createdAt: string }
>;
export type SigningKeyEvent = SigningKeyGenerated;
