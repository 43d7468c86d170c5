import type { DomainEvent } from '../shared/decider.js';
import type { SigningAlg } from '../tenant/tenant.events.js';

/**
 * A signing key pair; the private half only as ciphertext under the key-encryption key.
 * `lowS`: an ES256 key whose signatures all have s in the lower half, so only those verify
 * (keys made before this flag signed with either half, and keep accepting both).
 * `activatesAt` (seconds since the epoch): the key is published (announced) from now on and
 * signs from then on; absent, it signs at once (a tenant's first key of an algorithm, made on
 * first need, when no token of that algorithm exists yet).
 */
export type SigningKeyGenerated = DomainEvent<
  'SigningKeyGenerated',
  { tenantId: string; kid: string; alg: SigningAlg; publicJwk: Record<string, unknown>; encryptedPrivateKey: string; createdAt: string; lowS?: true; activatesAt?: number }
>;
/** An announced key has begun to sign (at `at`, its `activatesAt`); the key it replaces starts retiring. */
export type SigningKeyActivated = DomainEvent<'SigningKeyActivated', { tenantId: string; kid: string; alg: SigningAlg; at: number; replaced?: string }>;
/** A key that no longer signs left the published key set, every token it signed having expired (at `at`). */
export type SigningKeyRetired = DomainEvent<'SigningKeyRetired', { tenantId: string; kid: string; alg: SigningAlg; at: number }>;
export type SigningKeyEvent = SigningKeyGenerated | SigningKeyActivated | SigningKeyRetired;
