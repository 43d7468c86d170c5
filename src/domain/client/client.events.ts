import type { DomainEvent } from '../shared/decider.js';
import type { SigningAlg } from '../tenant/tenant.events.js';
import type { ClientJwks } from './client-jwks.js';

export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt'
  // client_secret_jwt (RFC 7523 §2.2 with an HMAC, OpenID Connect Core §9)
  | 'client_secret_jwt';

/** The methods that authenticate with a client secret (the server keeps its digest; for client_secret_jwt also the secret, sealed). */
export const SECRET_METHODS: readonly TokenEndpointAuthMethod[] = ['client_secret_basic', 'client_secret_post', /* client_secret_jwt */ 'client_secret_jwt'];

/** A public JWK, as registered in a client's `jwks` (RFC 7517 §4). */
export type PublicJwk = Record<string, unknown> & { kty: string };

/**
 * How a client secret is kept: `hmac-sha256`, keyed under KEY_ENCRYPTION_KEY (a copy of the log
 * alone cannot test guesses); `sha256`, bare, only in clients registered before (schema version
 * 1 of ClientCreated, upcast). `hash` is base64url.
 */
export interface SecretDigest {
  scheme: 'hmac-sha256' | 'sha256';
  hash: string;
  /**
   * client_secret_jwt only: the secret itself, sealed with the key-encryption key for its tenant
   * and client (checking an HMAC needs it; ClientSecrets), never usable from the log alone.
   */
  sealed?: string;
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
  // The client's public keys (RFC 7591 §2 `jwks`): what its client assertions (private_key_jwt,
  // RFC 7523) and its request objects (JAR, RFC 9101) are verified with.
  jwks?: ClientJwks;
  // jwks_uri (RFC 7591 §2): where its JWK Set is fetched from instead of `jwks` (never both).
  jwksUri?: string;
  // private_key_jwt: the one alg its assertions use.
  tokenEndpointAuthSigningAlg?: string;
  // DPoP (RFC 9449 §5.2): every access token of this client is DPoP-bound.
  dpopBoundAccessTokens?: boolean;
  // PAR (RFC 9126 §6):
  /** Its authorization requests come only by `request_uri` from `/par`. */
  requirePushedAuthorizationRequests?: true;
  // JAR (RFC 9101 §10.5):
  /** The one algorithm its request objects may be signed with; absent, any of REQUEST_OBJECT_ALGS. */
  requestObjectSigningAlg?: string;
  /** Its authorization requests come only as signed request objects (`request`). */
  requireSignedRequestObject?: true;
  // JARM §3:
  /** How its authorization responses are signed (response_mode *.jwt); absent, RS256. */
  authorizationSignedResponseAlg?: SigningAlg;
  // Back-channel logout (OpenID Connect Back-Channel Logout 1.0 §2.2).
  backchannelLogoutUri?: string;
  backchannelLogoutSessionRequired?: boolean;
  // Front-channel logout (OpenID Connect Front-Channel Logout 1.0 §2).
  frontchannelLogoutUri?: string;
  frontchannelLogoutSessionRequired?: boolean;
  // Native apps (OAuth 2.0 for First-Party Applications): may sign users in at /native/authorize.
  firstPartyNative?: true;
  // Shared Signals: its push streams may name http, loopback and private-network endpoints (an administrator's choice, for an internal receiver).
  ssfPushInternalEndpoints?: true;
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
/** The client holds the role for its own tokens (client_credentials): the role's permissions are the client's. */
export type ClientRoleAssigned = DomainEvent<'ClientRoleAssigned', { tenantId: string; clientId: string; roleId: string }>;
export type ClientRoleUnassigned = DomainEvent<'ClientRoleUnassigned', { tenantId: string; clientId: string; roleId: string }>;
export type ClientEvent = ClientCreated | ClientUpdated | ClientSecretRotated | ClientDeleted | ClientRoleAssigned | ClientRoleUnassigned;

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
    // 'par': PAR (RFC 9126 §2).
    endpoint: 'token' | 'introspect' | 'revoke' | 'par' | 'device_authorization' | /* native apps */ 'native/authorize';
    method: TokenEndpointAuthMethod;
    /** `invalid_assertion`: a client assertion (RFC 7523) that does not verify; `replayed_assertion`: one whose jti was used before. */
    reason: 'wrong_secret' | 'wrong_method' | 'invalid_assertion' | 'replayed_assertion';
    /** Failures of this client left unrecorded since the last one recorded (beyond ten a minute). */
    unrecordedBefore?: number;
  }
>;
