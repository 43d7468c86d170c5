/**
 * A tenant's security profile: what its endpoints accept, as data. One file per profile holds
 * its values (baseline.profile.ts, fapi2-security.profile.ts, fapi2-message-signing.profile.ts);
 * rules.ts holds the checks every endpoint asks, each reading only the tenant's own profile.
 */
export interface SecurityProfileRules {
  /** RFC 9126 §5: every authorization request is pushed to `/par` first. */
  requirePushedRequests: boolean;
  /** RFC 7636 §4.3: the PKCE methods accepted. */
  codeChallengeMethods: readonly ('S256' | 'plain')[];
  /** RFC 9449: every token request carries a DPoP proof, so every access token is sender-constrained. */
  requireDpop: boolean;
  /** The client authentication methods accepted at /token, /par, /introspect and /revoke (`none` is a public client). */
  clientAuthMethods: readonly ('client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none' | /* client_secret_jwt */ 'client_secret_jwt')[];
  /** What a client assertion's `aud` may be: the issuer alone, or also the token endpoint and the endpoint it is sent to. */
  assertionAudience: 'issuer' | 'issuer-or-endpoint';
  /** JWS algs accepted and used (ID tokens, JARM, access tokens, assertions, request objects, DPoP); undefined: every alg the server supports. */
  jwsAlgs?: readonly string[];
  /** Whether a refresh token is replaced at each use (OAuth 2.1 §4.3.1), or kept (FAPI 2.0 §5.3.2.1). */
  rotateRefreshTokens: boolean;
  /** RFC 9101: every authorization request is a signed request object. */
  requireSignedRequests: boolean;
  /** The `response_mode` values accepted, by their request names. */
  responseModes: readonly string[];
}

export const SECURITY_PROFILES = ['baseline', 'fapi2-security', 'fapi2-message-signing'] as const;
export type SecurityProfileName = (typeof SECURITY_PROFILES)[number];
