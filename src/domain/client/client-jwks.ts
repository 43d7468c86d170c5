/** JAR (RFC 9101): the keys a client registers (RFC 7591 §2 `jwks`) to sign its request objects with. */

/** A JWK Set (RFC 7517 §5) of public keys. */
export interface ClientJwks {
  keys: Array<Record<string, unknown>>;
}

/** The algorithms a request object may be signed with here: asymmetric only (RFC 9101 §10.1 does not allow `none` where a signature is required). */
export const REQUEST_OBJECT_ALGS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;

const MAX_KEYS = 10;
const MAX_JSON_LENGTH = 16_384;
const KEY_TYPES = new Set(['RSA', 'EC', 'OKP']);
/** RFC 7518 §6.2.2, §6.3.2 and RFC 8037 §2: the members only a private key has. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** What is wrong with `jwks` as a client's public key set, or undefined when nothing is. */
export function jwksProblem(jwks: unknown): string | undefined {
  if (typeof jwks !== 'object' || jwks === null || Array.isArray(jwks)) return 'jwks must be a JWK Set: {"keys": [...]}';
  const keys = (jwks as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) return 'jwks must hold at least one key in "keys"';
  if (keys.length > MAX_KEYS) return `jwks may hold at most ${MAX_KEYS} keys`;
  if (JSON.stringify(jwks).length > MAX_JSON_LENGTH) return `jwks may be at most ${MAX_JSON_LENGTH} characters`;
  for (const key of keys) {
    if (typeof key !== 'object' || key === null || Array.isArray(key)) return 'every key in jwks must be a JWK object';
    const k = key as Record<string, unknown>;
    if (typeof k.kty !== 'string' || !KEY_TYPES.has(k.kty)) return 'every key in jwks must have kty RSA, EC or OKP';
    // A private (or symmetric) key here would be a secret in the event log and the views.
    if (PRIVATE_MEMBERS.some((m) => m in k)) return 'jwks must hold public keys only';
  }
  return undefined;
}
