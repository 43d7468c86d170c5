import { profileOf } from '../../../domain/security-profile/rules.js';
import { InvalidRequest } from '../../oauth-errors.js';
import type { Check } from './check.js';

/** RFC 7636 §4.2: a challenge is 43 to 128 unreserved characters. */
const CODE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
/** RFC 7636 §4.2: an S256 challenge is BASE64URL(SHA256(verifier)), 43 characters; any other could never match. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * RFC 7636 §4.3 and OAuth 2.1 §4.1.1: every request carries a code challenge; `plain` is the
 * default method (RFC 7636 §4.3) unless the tenant's profile asks for S256 only.
 */
export const checkPkce: Check = (ctx) => {
  const challenge = ctx.params.code_challenge;
  if (!challenge) throw new InvalidRequest('code_challenge is required');
  const method = ctx.params.code_challenge_method ?? 'plain';
  if (method !== 'S256' && method !== 'plain') throw new InvalidRequest('code_challenge_method must be S256 or plain');
  if (!profileOf(ctx.tenant).codeChallengeMethods.includes(method)) throw new InvalidRequest('this tenant requires code_challenge_method=S256');
  if (!CODE_CHALLENGE.test(challenge)) throw new InvalidRequest('code_challenge must be 43 to 128 unreserved characters');
  if (method === 'S256' && !S256_CHALLENGE.test(challenge)) throw new InvalidRequest('an S256 code_challenge is the 43-character base64url SHA-256 of the verifier');
  ctx.request.codeChallenge = challenge;
  ctx.request.codeChallengeMethod = method;
};
