import type { DomainEvent } from '../shared/decider.js';

/**
 * The one-time JWTs whose `jti` the server remembers: client assertions (RFC 7523) and DPoP
 * proofs (RFC 9449); the steps of a native sign-in (`auth_session`, its own id); and the
 * WebAuthn challenges of the passkey pages (`webauthn_challenge`, the challenge itself).
 */
export type OneTimeJwtKind = 'client_assertion' | 'dpop_proof' | 'auth_session' | 'webauthn_challenge';

/**
 * A one-time JWT was accepted: its `jti` is used up for its lifetime. Appended as the first
 * and only event of a stream named by the jti (expected revision `no_stream`), so that every
 * server on the log sees a second use as a conflict (rule 5). Carries no jti: the stream name
 * holds only its hash.
 */
export type JtiUsed = DomainEvent<
  'JtiUsed',
  {
    tenantId: string;
    kind: OneTimeJwtKind;
    /** The client that presented it (client assertions; DPoP proofs where the client is known). */
    clientId?: string;
    /** DPoP: the thumbprint of the proof's key (RFC 7638). */
    jkt?: string;
    /** When the JWT stops being acceptable anyway (seconds): after it, the entry has no use. */
    expiresAt: number;
  }
>;

/** The stream of one jti, per tenant, kind and issuer (a client, or a DPoP key): `jti-<tenant>.<kind>.<hash>`. */
export const jtiStream = (tenantId: string, kind: OneTimeJwtKind, hash: string) => `jti-${tenantId}.${kind}.${hash}`;
