import { createPublicKey } from 'node:crypto';
import type { PublicJwk } from './client.events.js';

/**
 * The keys a client registers (RFC 7591 §2 `jwks`): one JWK Set of public signature keys, for
 * its client assertions (private_key_jwt, RFC 7523) and its request objects (JAR, RFC 9101).
 */
export interface ClientJwks {
  keys: PublicJwk[];
}

/** The algorithms a request object may be signed with here: asymmetric only (RFC 9101 §10.1 does not allow `none` where a signature is required). */
export const REQUEST_OBJECT_ALGS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;

/** The algs a client assertion may be signed with (RFC 7518; `Ed25519` is RFC 9864's name for EdDSA over Ed25519): asymmetric only, see README (client_secret_jwt). */
export const ASSERTION_ALGS = ['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519'] as const;
export type AssertionAlg = (typeof ASSERTION_ALGS)[number];

/** At most this many keys in a client's `jwks`: enough for a rotation, not a store. */
const MAX_KEYS = 10;
const MAX_JSON_LENGTH = 16_384;
/** Members of a JWK that only a private or symmetric key has (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
export const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** Whether a key of this type and curve can verify `alg`. */
export function keyFitsAlg(jwk: PublicJwk, alg: string): boolean {
  switch (alg) {
    case 'ES256':
      return jwk.kty === 'EC' && jwk.crv === 'P-256';
    case 'RS256':
    case 'PS256':
      return jwk.kty === 'RSA';
    case 'EdDSA':
    case 'Ed25519':
      return jwk.kty === 'OKP' && jwk.crv === 'Ed25519';
    default:
      return false;
  }
}

/**
 * What is wrong with a client's `jwks` (for private_key_jwt with `alg`, when given), or undefined: a JWK Set
 * (RFC 7517 §5) of public signature keys that OpenSSL can import, one at least fit for `alg`.
 */
export function jwksProblem(jwks: unknown, alg?: string): string | undefined {
  if (typeof jwks !== 'object' || jwks === null || !Array.isArray((jwks as { keys?: unknown }).keys)) return 'jwks must be a JWK Set: {"keys": [...]}';
  const keys = (jwks as { keys: unknown[] }).keys;
  if (keys.length === 0 || keys.length > MAX_KEYS) return `jwks must hold 1 to ${MAX_KEYS} keys`;
  if (JSON.stringify(jwks).length > MAX_JSON_LENGTH) return `jwks may be at most ${MAX_JSON_LENGTH} characters`;
  for (const [i, key] of keys.entries()) {
    if (typeof key !== 'object' || key === null || Array.isArray(key)) return `jwks.keys[${i}] must be a JWK`;
    const jwk = key as Record<string, unknown>;
    if (PRIVATE_MEMBERS.some((m) => m in jwk)) return `jwks.keys[${i}] holds private or symmetric key material: register public keys only`;
    if (jwk.kty !== 'EC' && jwk.kty !== 'RSA' && jwk.kty !== 'OKP') return `jwks.keys[${i}] must be an EC, RSA or OKP key`;
    if (jwk.use !== undefined && jwk.use !== 'sig') return `jwks.keys[${i}] must be a signature key (use "sig")`;
    if (jwk.alg !== undefined && !(ASSERTION_ALGS as readonly unknown[]).includes(jwk.alg)) return `jwks.keys[${i}] has an unsupported alg`;
    if (jwk.kid !== undefined && typeof jwk.kid !== 'string') return `jwks.keys[${i}].kid must be a string`;
    try {
      const imported = createPublicKey({ key: jwk as never, format: 'jwk' });
      if (jwk.kty === 'RSA' && (imported.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) return `jwks.keys[${i}] is an RSA key shorter than 2048 bits`;
    } catch {
      return `jwks.keys[${i}] is not a valid public key`;
    }
  }
  if (alg !== undefined && !keys.some((k) => keyFitsAlg(k as PublicJwk, alg))) return `no key in jwks fits token_endpoint_auth_signing_alg ${alg}`;
  return undefined;
}
