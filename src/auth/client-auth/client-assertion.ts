import { decodeJwt, decodeProtectedHeader, type JWTPayload, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { ClientView } from '../../../projections/clients.projection.js';
import { ASSERTION_ALGS } from '../../domain/client/client-jwks.js';
import { JwksUnavailable } from '../client-keys/jwks-fetcher.js';
import { InvalidClient } from '../oauth-errors.js';

/** RFC 7523 §2.2: the one client assertion type. */
export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The longest an assertion may still be valid when it arrives: it is meant for one request. */
export const MAX_ASSERTION_LIFETIME = 300;
/** Clocks of client and server may differ this much (iat, nbf, exp). */
const CLOCK_SKEW = 30;

/**
 * The client an assertion names, read without verifying it (to find the client's keys): RFC
 * 7523 §3 `iss` and `sub` are both the client_id.
 */
export function assertionClientId(assertion: string): string {
  let claims: JWTPayload;
  try {
    claims = decodeJwt(assertion);
  } catch {
    throw new InvalidClient('the client assertion is not a JWT');
  }
  if (typeof claims.sub !== 'string' || claims.iss !== claims.sub) throw new InvalidClient('the client assertion must have iss and sub both the client_id');
  return claims.sub;
}

/** Which method an assertion is of, by its alg: an HMAC is client_secret_jwt (RFC 7523 §2.2 with a shared secret), anything else private_key_jwt. */
export function assertionMethod(assertion: string): 'private_key_jwt' | 'client_secret_jwt' {
  try {
    return /^HS\d+$/.test(decodeProtectedHeader(assertion).alg ?? '') ? 'client_secret_jwt' : 'private_key_jwt';
  } catch {
    throw new InvalidClient('the client assertion is not a JWT');
  }
}

/** The verified claims, with `jti` and `exp`; undefined when the assertion does not verify. */
export interface VerifiedAssertion {
  jti: string;
  exp: number;
}

/**
 * Verifies a private_key_jwt assertion (RFC 7523 §3, OpenID Connect Core §9): signed by one of
 * the client's keys (`keys`, from ClientKeys: its jwks or jwks_uri) with its registered alg (never `none`), `iss` = `sub` = client_id, `aud`
 * one of `audiences`, `exp` present, its alg one of `profileAlgs` (the tenant's security profile's), and at most MAX_ASSERTION_LIFETIME ahead, a `jti`. The
 * jti's single use is the caller's (UsedJtis). Returns a reason when it fails.
 */
export async function verifyAssertion(
  assertion: string,
  client: ClientView,
  keys: JWTVerifyGetKey | Uint8Array | undefined,
  audiences: string[],
  now: Date,
  profileAlgs: readonly string[] = ASSERTION_ALGS,
  // client_secret_jwt: the HMAC algs its secret is long enough for.
  supported: readonly string[] = ASSERTION_ALGS,
): Promise<VerifiedAssertion | string> {
  if (!keys) return 'the client has no keys';
  const algorithms = (client.tokenEndpointAuthSigningAlg ? [client.tokenEndpointAuthSigningAlg] : [...supported]).filter((a) => supported.includes(a) && profileAlgs.includes(a));
  if (algorithms.length === 0) return 'the client assertion alg is not allowed by the security profile';
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, keys as JWTVerifyGetKey, { algorithms, issuer: client.clientId, subject: client.clientId, audience: audiences, currentDate: now, clockTolerance: CLOCK_SKEW, requiredClaims: ['exp', 'jti'] }));
  } catch (e) {
    return e instanceof JwksUnavailable ? e.message : 'the client assertion is invalid';
  }
  const seconds = Math.floor(now.getTime() / 1000);
  if (payload.exp! > seconds + MAX_ASSERTION_LIFETIME + CLOCK_SKEW) return `the client assertion must expire within ${MAX_ASSERTION_LIFETIME} seconds`;
  if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 256) return 'the client assertion needs a jti';
  return { jti: payload.jti, exp: payload.exp! };
}
