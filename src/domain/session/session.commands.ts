import type { ResourceTarget } from './resource-target.js';
import type { CodeIssued, SessionEndReason } from './session.events.js';

/** A new access token, described by the handler (ids, keys and times come in, never made here). */
export interface AccessTokenSpec {
  jti: string;
  audience: string[];
  issuedAt: number;
  expiresAt: number;
  /** The key that will sign it. */
  kid: string;
  /** The ID token that goes with it when the token's scope has `openid`. */
  idToken: { kid: string; expiresAt: number };
  /** DPoP: the key thumbprint the token is bound to. */
  jkt?: string;
}

export interface RefreshSpec {
  hash: string;
  expiresAt: number;
}

/**
 * When a code earns a refresh token (the rule is documented in the README): `never` when the
 * client may not use the grant; `offline_access` when OpenID requests need that scope; `always`.
 */
export type RefreshRule = 'never' | 'offline_access' | 'always';

/**
 * A command whose refusal (CodeRefused, RefreshRefused, RevocationRefused) is recorded, unless
 * `unrecorded`: then it is only answered, as an error of the same words.
 */
export interface Refusable {
  unrecorded?: boolean;
}

export type SessionCommand =
  | { kind: 'StartSession'; tenantId: string; sessionId: string; userId: string; cookieHash: string; now: number; amr?: string[] }
  | { kind: 'Reauthenticate'; userId: string; presentedCookieHash: string; cookieHash: string; now: number; amr?: string[] }
  | { kind: 'IssueCode'; code: Omit<CodeIssued['data'], 'tenantId' | 'sessionId' | 'userId' | 'authTime' | 'amr'> }
  | ({ kind: 'RedeemCode'; codeHash: string; clientId: string; redirectUri: string | undefined; codeVerifier: string; now: number; access: AccessTokenSpec; refresh: RefreshSpec; refreshRule: RefreshRule; refreshJkt?: string; target?: ResourceTarget } & Refusable)
  /**
   * `jkt`: the key of the request's DPoP proof, if any (a bound grant's refresh needs its key).
   * `keep` (security profiles): the refresh token stays the one in use, and `refresh` is unused.
   * `target`: the token request's `resource` (RFC 8707).
   */
  | ({ kind: 'RotateRefresh'; refreshHash: string; clientId: string; scope?: string[]; now: number; access: AccessTokenSpec; refresh: RefreshSpec; jkt?: string; keep?: true; target?: ResourceTarget } & Refusable)
  /** `clientId` presents the token, which was issued to `owner`. */
  | ({ kind: 'RevokeAccessToken'; jti: string; grantId?: string; clientId: string; owner: string } & Refusable)
  | ({ kind: 'RevokeRefreshToken'; refreshHash: string; clientId: string; now: number } & Refusable)
  /** `requestedBy`: the client whose logout request it is (RP-Initiated Logout), when one is named. */
  | { kind: 'EndSession'; reason: SessionEndReason; now: number; requestedBy?: string };
