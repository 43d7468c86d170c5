import type { SecretDigest } from './client.events.js';

/** The algs of client_secret_jwt assertions (RFC 7523 §2.2 with RFC 7518 §3.2 HMACs). */
export const HMAC_ASSERTION_ALGS = ['HS256', 'HS384', 'HS512'] as const;

/** RFC 7518 §3.2: an HMAC key at least as long as the hash output (MUST). */
export function hmacKeyFits(alg: string, secret: string): boolean {
  return Buffer.byteLength(secret, 'utf8') * 8 >= Number(alg.slice(2));
}

/** A digest without its sealed secret: what every client but a client_secret_jwt one keeps. */
export function withoutSealed(digest: SecretDigest): SecretDigest {
  const { sealed: _sealed, ...rest } = digest;
  return rest;
}
