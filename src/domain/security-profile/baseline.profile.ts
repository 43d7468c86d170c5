import type { SecurityProfileRules } from './profile.js';

/** OAuth 2.1 with the extensions each client opts into (PAR, JAR, JARM, DPoP, private_key_jwt). */
export const BASELINE: SecurityProfileRules = {
  requirePushedRequests: false,
  codeChallengeMethods: ['S256', 'plain'],
  requireDpop: false,
  clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none', /* client_secret_jwt */ 'client_secret_jwt'],
  assertionAudience: 'issuer-or-endpoint',
  jwsAlgs: undefined,
  rotateRefreshTokens: true,
  requireSignedRequests: false,
  responseModes: ['query', 'form_post', 'jwt', 'query.jwt', 'form_post.jwt'],
};
