import { createHash, createPrivateKey, createPublicKey, generateKeyPair, type KeyObject, sign, verify } from 'node:crypto';
import { promisify } from 'node:util';
import type { SigningAlg } from '../../domain/tenant/tenant.events.js';

export type Jwk = Record<string, unknown> & { kty: string };

export interface KeyPairJwk {
  publicJwk: Jwk;
  privateJwk: Jwk;
}

/**
 * `inline`: signed by OpenSSL on the calling thread; otherwise on libuv's thread pool, so that
 * the request thread serves other requests meanwhile (the token endpoint's append is under way at
 * the same time). ES256 (OpenSSL's signature is the costliest step of a client_credentials
 * token) and RS256 go to the pool; Ed25519 is cheap enough to sign in the call.
 */
const SPECS: Record<SigningAlg, { hash: string | null; dsaEncoding?: 'ieee-p1363'; inline: boolean }> = {
  ES256: { hash: 'sha256', dsaEncoding: 'ieee-p1363', inline: false },
  RS256: { hash: 'sha256', inline: false },
  EdDSA: { hash: null, inline: true },
};

const generatePair = promisify(generateKeyPair);

/** A new key pair for `alg`, made on libuv's thread pool (an RSA key takes about 100 ms). */
export async function generateKeyPairJwk(alg: SigningAlg): Promise<KeyPairJwk> {
  const pair =
    alg === 'ES256'
      ? await generatePair('ec', { namedCurve: 'P-256' })
      : alg === 'RS256'
        ? await generatePair('rsa', { modulusLength: 2048 })
        : await generatePair('ed25519');
  return { publicJwk: pair.publicKey.export({ format: 'jwk' }) as Jwk, privateJwk: pair.privateKey.export({ format: 'jwk' }) as Jwk };
}

/** RFC 7638 JWK thumbprint (SHA-256, base64url), used as the `kid`. */
export function thumbprint(jwk: Jwk): string {
  const members: Record<string, string[]> = { EC: ['crv', 'kty', 'x', 'y'], RSA: ['e', 'kty', 'n'], OKP: ['crv', 'kty', 'x'] };
  const required = members[jwk.kty];
  if (!required) throw new Error(`unsupported key type ${jwk.kty}`);
  const canonical = JSON.stringify(Object.fromEntries(required.map((k) => [k, jwk[k]])));
  return createHash('sha256').update(canonical).digest('base64url');
}

export function privateKeyFromJwk(jwk: Jwk): KeyObject {
  return createPrivateKey({ key: jwk as any, format: 'jwk' });
}

export function publicKeyFromJwk(jwk: Jwk): KeyObject {
  return createPublicKey({ key: jwk as any, format: 'jwk' });
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The order n of the P-256 group (SEC 2 §2.4.2), and n / 2. */
const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const P256_HALF_N = P256_N >> 1n;

/**
 * ECDSA signatures come in pairs: with (r, s), (r, n - s) verifies too. ES256 signatures are
 * made with s in the lower half, and a key flagged `lowS` accepts only those, so its tokens
 * have one spelling (as with the base64url of a signature, see decodeJwt) and a list keyed by
 * token string cannot be sidestepped by flipping s. Keys made before the flag accept both.
 * These read and change only the public signature (r || s, 64 bytes); OpenSSL made it.
 */
const sOf = (signature: Buffer) => BigInt(`0x${signature.toString('hex', 32, 64)}`);
const isLowS = (signature: Buffer) => signature.length === 64 && sOf(signature) <= P256_HALF_N;

/** `signature` with s replaced by n - s when s is in the upper half (in place). */
function lowS(signature: Buffer): Buffer {
  const s = sOf(signature);
  if (s > P256_HALF_N) signature.write((P256_N - s).toString(16).padStart(64, '0'), 32, 'hex');
  return signature;
}

/** Compact JWS (RFC 7515) over a JSON payload, signed by OpenSSL; see SPECS for which thread. */
export async function signJwt(header: Record<string, unknown> & { alg: SigningAlg }, payload: Record<string, unknown>, key: KeyObject): Promise<string> {
  const input = `${b64(header)}.${b64(payload)}`;
  const data = Buffer.from(input);
  const spec = SPECS[header.alg];
  const signingKey = spec.dsaEncoding ? { key, dsaEncoding: spec.dsaEncoding } : key;
  const signed = (signature: Buffer) => `${input}.${(header.alg === 'ES256' ? lowS(signature) : signature).toString('base64url')}`;
  if (spec.inline) return signed(sign(spec.hash, data, signingKey));
  return new Promise((resolve, reject) => sign(spec.hash, data, signingKey, (err, signature) => (err ? reject(err) : resolve(signed(signature)))));
}

export interface DecodedJwt {
  header: Record<string, unknown> & { alg?: string; kid?: string; typ?: string };
  payload: Record<string, unknown>;
}

/** Splits and parses a compact JWS without checking it; undefined when it is not one. */
export function decodeJwt(token: string): (DecodedJwt & { input: string; signature: Buffer }) | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    if (typeof header !== 'object' || !header || typeof payload !== 'object' || !payload) return undefined;
    // RFC 7515 §7.1: the signature segment is base64url, no padding. The decoder skips any other
    // character and ignores a last character's spare bits: only the one canonical spelling
    // passes, so a token has no second spelling that also verifies.
    const signature = Buffer.from(parts[2], 'base64url');
    if (signature.toString('base64url') !== parts[2]) return undefined;
    return { header, payload, input: `${parts[0]}.${parts[1]}`, signature };
  } catch {
    return undefined;
  }
}

/**
 * Checks the signature of a decoded JWS against a key of the given algorithm (on the thread
 * pool); `alg: none` never passes. `lowS`: an ES256 signature must have s in the lower half.
 */
export function signatureValid(decoded: NonNullable<ReturnType<typeof decodeJwt>>, key: KeyObject, alg: SigningAlg, lowS = false): Promise<boolean> {
  if (decoded.header.alg !== alg) return Promise.resolve(false);
  if (lowS && alg === 'ES256' && !isLowS(decoded.signature)) return Promise.resolve(false);
  const spec = SPECS[alg];
  return new Promise((resolve) =>
    verify(spec.hash, Buffer.from(decoded.input), spec.dsaEncoding ? { key, dsaEncoding: spec.dsaEncoding } : key, decoded.signature, (err, ok) => resolve(!err && ok)),
  );
}
