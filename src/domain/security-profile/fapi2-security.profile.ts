import type { SecurityProfileRules } from './profile.js';

/** FAPI 2.0 Security Profile (final), §5.3.2 for the authorization server. */
export const FAPI2_SECURITY: SecurityProfileRules = {
  // §5.3.2.2: only pushed authorization requests.
  requirePushedRequests: true,
  // §5.3.2.2: PKCE with S256.
  codeChallengeMethods: ['S256'],
  // §5.3.2.1: sender-constrained access tokens (DPoP here; mTLS is not served).
  requireDpop: true,
  // §5.3.2.1: confidential clients only; private_key_jwt (mTLS is not served).
  clientAuthMethods: ['private_key_jwt'],
  // §5.3.2.1: the issuer identifier as the sole audience of a client assertion.
  assertionAudience: 'issuer',
  // §5.4 (cryptography): PS256, ES256 or EdDSA (Ed25519) only.
  jwsAlgs: ['PS256', 'ES256', 'EdDSA', 'Ed25519'],
  // §5.3.2.1 (refresh token rotation only in extraordinary circumstances): kept.
  rotateRefreshTokens: false,
  requireSignedRequests: false,
  responseModes: ['query', 'form_post', 'jwt', 'query.jwt', 'form_post.jwt'],
};
