import type { DomainEvent } from '../shared/decider.js';

/**
 * The life of one browser session and every grant made in it. Codes, refresh tokens and the
 * session cookie appear only by their issue stamp and SHA-256 hash; access tokens only by `jti`.
 * Every event names the session's user (`userId`), so a subject's history holds how its
 * tokens ended as well as how they began; an event about a grant names the grant's client.
 */
export type SessionStarted = DomainEvent<'SessionStarted', { tenantId: string; sessionId: string; userId: string; cookieHash: string; authTime: number }>;
/**
 * The user proved who they are. On a sign-in again the session's cookies are replaced by this
 * one (`cookieHash`), so a copy of an old one is worth nothing; `cookieAdded`: the sign-in was
 * sent alongside the one that just replaced them, and its cookie joins that one's.
 */
export type UserAuthenticated = DomainEvent<
  'UserAuthenticated',
  // MFA: `amr` (RFC 8176) when the sign-in proved more than the password; absent, `pwd` alone.
  { tenantId: string; sessionId: string; userId: string; method: 'pwd'; authTime: number; cookieHash?: string; cookieAdded?: true; amr?: string[] }
>;
/** How long an authorization code lives, in seconds (RFC 6749 §4.1.2: a short time). */
export const CODE_TTL_SECONDS = 60;

export type CodeIssued = DomainEvent<
  'CodeIssued',
  {
    tenantId: string;
    sessionId: string;
    grantId: string;
    codeHash: string;
    clientId: string;
    userId: string;
    redirectUri: string;
    /** The request left `redirect_uri` out (the client's only registered one was used), so the token request may too (RFC 6749 §4.1.3). */
    redirectUriOmitted?: true;
    /**
     * The challenge in S256 form. A `plain` challenge is the verifier itself, so it is kept
     * only as its S256 transform; `codeChallengeMethod` says what the client sent.
     */
    codeChallenge: string;
    codeChallengeMethod: 'S256' | 'plain';
    scope: string[];
    nonce?: string;
    authTime: number;
    /** MFA: the session's authentication methods (RFC 8176) when the code was issued, if more than the password. */
    amr?: string[];
    /** Resource indicators (RFC 8707 §2.1): the identifier of the resource the code's access tokens are for. */
    resource?: string;
    /** RFC 9449 §10: the thumbprint of the DPoP key the code is bound to (`dpop_jkt`). */
    dpopJkt?: string;
    /** When the code was issued (absent from codes issued before it was recorded: `expiresAt` less CODE_TTL_SECONDS). */
    issuedAt?: number;
    expiresAt: number;
  }
>;
export type CodeRedeemed = DomainEvent<'CodeRedeemed', { tenantId: string; sessionId: string; userId: string; grantId: string; codeHash: string; clientId: string }>;
/**
 * A used code was presented again by its client, with its redirect URI and verifier: the
 * grant it produced is revoked with it (`GrantRevoked`), unless it had already ended. Recorded
 * either way, as a sign that the code leaked.
 */
export type CodeReplayed = DomainEvent<'CodeReplayed', { tenantId: string; sessionId: string; userId: string; grantId: string; codeHash: string; clientId: string }>;
/**
 * The `jti` of an access token issued on a grant: the handler's random id, then the grant.
 * Naming the grant in the token lets introspection see a grant's revocation from the JWT
 * alone, so these tokens need no stored document until one is revoked by itself.
 */
export const grantTokenId = (jti: string, grantId: string) => `${jti}.${grantId}`;

/** The grant a `jti` names (see grantTokenId); undefined for a client's own token or one issued before. */
export function grantOfTokenId(jti: string): string | undefined {
  const dot = jti.indexOf('.');
  return dot > 0 && dot < jti.length - 1 ? jti.slice(dot + 1) : undefined;
}

export type AccessTokenIssued = DomainEvent<
  'AccessTokenIssued',
  {
    tenantId: string;
    jti: string;
    clientId: string;
    sub: string;
    /** Present for user tokens: the session and grant the token belongs to. */
    sessionId?: string;
    grantId?: string;
    userId?: string;
    scope: string[];
    audience: string[];
    issuedAt: number;
    expiresAt: number;
    /** How it was obtained; absent in events recorded before it was kept. */
    grantType?: 'authorization_code' | 'refresh_token' | 'client_credentials';
    /** The key that signed it (absent before it was kept): after a key's compromise, the tokens it signed. */
    kid?: string;
    /** The ID token issued with it, when `openid` was granted: the key that signed it and its expiry. */
    idToken?: { kid: string; expiresAt: number };
    /** DPoP (RFC 9449 §6.1): the thumbprint of the key the token is bound to; absent for a Bearer token. */
    jkt?: string;
  }
>;
export type RefreshTokenIssued = DomainEvent<
  'RefreshTokenIssued',
  {
    tenantId: string;
    sessionId: string;
    grantId: string;
    refreshHash: string;
    clientId: string;
    userId: string;
    scope: string[];
    issuedAt: number;
    expiresAt: number;
    /** DPoP (RFC 9449 §5): a public client's refresh tokens of this grant are bound to this key (its thumbprint). */
    jkt?: string;
    /** Resource indicators (RFC 8707 §2.2): the resource the grant's access tokens are for, its code's. */
    resource?: string;
  }
>;
export type RefreshRotated = DomainEvent<
  'RefreshRotated',
  { tenantId: string; sessionId: string; grantId: string; fromHash: string; toHash: string; clientId: string; userId: string; scope: string[]; issuedAt: number; expiresAt: number }
>;
/** An already-rotated refresh token came back from its own, authenticated client. */
export type RefreshReplayed = DomainEvent<'RefreshReplayed', { tenantId: string; sessionId: string; userId: string; grantId: string; refreshHash: string; clientId: string }>;
/** One token ended by itself; `sessionId`, `grantId` and `userId` for a user's token, none for a client's own. */
export type TokenRevoked = DomainEvent<
  'TokenRevoked',
  { tenantId: string; sessionId?: string; userId?: string; grantId?: string; clientId: string; tokenType: 'access_token' | 'refresh_token'; jti?: string; refreshHash?: string; reason: string }
>;
/** Every token of the grant ends: its refresh token and the access tokens whose `jti` names the grant. */
export type GrantRevoked = DomainEvent<'GrantRevoked', { tenantId: string; sessionId: string; userId: string; grantId: string; clientId: string; reason: 'code_replayed' | 'refresh_revoked' | 'refresh_replayed' | 'admin' }>;
/**
 * Every token of the session ends. `grants` lists the grants that had not ended before, each
 * with its client: the applications a logout concerns, including those of codes not redeemed
 * yet (since this event names them: before, only redeemed ones). `another_user_signed_in`:
 * the browser holding the session signed in as someone else (one user per browser).
 * `requestedBy`: the client whose logout request it was, when the request named one.
 * `kept`: grants that outlive a logout (offline grants of other clients, Back-Channel Logout
 * 1.0 §2.7), with their refresh token and the access tokens it issues; absent when none.
 */
export type SessionRevoked = DomainEvent<
  'SessionRevoked',
  {
    tenantId: string;
    sessionId: string;
    userId: string;
    grants: Array<{ grantId: string; clientId: string }>;
    reason: SessionEndReason | 'refresh_replayed';
    requestedBy?: string;
    kept?: Array<{ grantId: string; clientId: string }>;
  }
>;
/** Why a session is ended on request (a replayed refresh token ends one by itself). */
export type SessionEndReason = 'logout' | 'admin' | 'another_user_signed_in';

/**
 * A code of the session was presented and refused in a way that says it may have leaked: by
 * another client than its own (`presentedBy`), or with another redirect URI or code_verifier
 * than its request's. Nothing changes; the attempt is on record.
 */
export type CodeRefused = DomainEvent<
  'CodeRefused',
  { tenantId: string; sessionId: string; userId: string; grantId: string; codeHash: string; clientId: string; presentedBy: string; reason: 'other_client' | 'redirect_uri' | 'code_verifier' }
>;
/** A refresh token of the session was presented by another client than its own (`presentedBy`) and refused; nothing changes. */
export type RefreshRefused = DomainEvent<
  'RefreshRefused',
  { tenantId: string; sessionId: string; userId: string; grantId: string; refreshHash: string; clientId: string; presentedBy: string; reason: 'other_client' }
>;

/**
 * Another client (`presentedBy`) asked to revoke a live token of this one (`clientId`) and was
 * refused (RFC 7009 §2.1); nothing changes. `sessionId`, `grantId` and `userId` for a user's
 * token, none for a client's own.
 */
export type RevocationRefused = DomainEvent<
  'RevocationRefused',
  {
    tenantId: string;
    sessionId?: string;
    userId?: string;
    grantId?: string;
    clientId: string;
    presentedBy: string;
    tokenType: 'access_token' | 'refresh_token';
    jti?: string;
    refreshHash?: string;
  }
>;

export type SessionEvent =
  | SessionStarted
  | UserAuthenticated
  | CodeIssued
  | CodeRedeemed
  | CodeReplayed
  | CodeRefused
  | AccessTokenIssued
  | RefreshTokenIssued
  | RefreshRotated
  | RefreshReplayed
  | RefreshRefused
  | RevocationRefused
  | TokenRevoked
  | GrantRevoked
  | SessionRevoked;
