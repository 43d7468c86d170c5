import type { DomainEvent } from '../shared/decider.js';
import type { SigningAlg } from '../tenant/tenant.events.js';

export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/**
 * How a client secret is kept: `hmac-sha256`, keyed under KEY_ENCRYPTION_KEY (a copy of the log
 * alone cannot test guesses); `sha256`, bare, only in clients registered before (schema version
 * 1 of ClientCreated, upcast). `hash` is base64url.
 */
export interface SecretDigest {
  scheme: 'hmac-sha256' | 'sha256';
  hash: string;
}

/** Client metadata as registered (RFC 7591 names, camelCase here). The secret is only ever a digest. */
export interface ClientRegistration {
  clientId: string;
  clientName?: string;
  /** The secret's digest; absent for public clients. */
  secretDigest?: SecretDigest;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: GrantType[];
  responseTypes: 'code'[];
  scope: string[];
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  firstParty: boolean;
  /** OpenID Connect Registration: how its ID tokens are signed; absent, with the tenant's own algorithm. */
  idTokenSignedResponseAlg?: SigningAlg;
  // Back-channel logout (OpenID Connect Back-Channel Logout 1.0 §2.2).
  backchannelLogoutUri?: string;
  backchannelLogoutSessionRequired?: boolean;
}

/** Schema version 2: `secretDigest` (version 1 had `secretHash: 'sha256:<base64url>'`; see client.upcasters.ts). */
export type ClientCreated = DomainEvent<'ClientCreated', { tenantId: string } & ClientRegistration>;
/** The client's metadata as it is now, whole (the secret aside: it changes only by rotation). */
export type ClientUpdated = DomainEvent<'ClientUpdated', { tenantId: string } & Omit<ClientRegistration, 'secretDigest'>>;
/**
 * A new secret, by its digest; the one it replaces stays valid until `previousValidUntil`
 * (seconds since the epoch), so that the client's servers can move to the new one.
 */
export type ClientSecretRotated = DomainEvent<'ClientSecretRotated', { tenantId: string; clientId: string; secretDigest: SecretDigest; previousValidUntil: number }>;
/** The client is gone: it authenticates no more, and no token issued to it is active. Its id is never given to another. */
export type ClientDeleted = DomainEvent<'ClientDeleted', { tenantId: string; clientId: string }>;
export type ClientEvent = ClientCreated | ClientUpdated | ClientSecretRotated | ClientDeleted;

/**
 * A registered client failed to authenticate at the token, introspection or revocation
 * endpoint: a wrong secret, or another method than the one it registered. Recorded on the
 * client's token stream, by an anonymous actor, without what was presented; at most ten a
 * minute per client. An unknown client id is not recorded: there is no client to attribute it to.
 */
export type ClientAuthenticationFailed = DomainEvent<
  'ClientAuthenticationFailed',
  {
    tenantId: string;
    clientId: string;
    endpoint: 'token' | 'introspect' | 'revoke';
    method: TokenEndpointAuthMethod;
    reason: 'wrong_secret' | 'wrong_method';
    /** Failures of this client left unrecorded since the last one recorded (beyond ten a minute). */
    unrecordedBefore?: number;
  }
>;
