import { createHash, createPrivateKey, createPublicKey, generateKeyPair, type KeyObject, sign, verify } from 'node:crypto';
import { promisify } from 'node:util';
import type { SigningAlg } from '../../domain/tenant/tenant.events.js';
import { JwsSigner } from './jws-signer.js';

export type Jwk = Record<string, unknown> & { kty: string };

export interface KeyPairJwk {
  publicJwk: Jwk;
  privateJwk: Jwk;
}

/** How each algorithm is signed and on which thread (see JwsSigner). */
const SPECS = JwsSigner.SPECS;

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

/** Compact JWS (RFC 7515) over a JSON payload, signed by OpenSSL; see SPECS for which thread. */
export async function signJwt(header: Record<string, unknown> & { alg: SigningAlg }, payload: Record<string, unknown>, key: KeyObject): Promise<string> {
  if (SPECS[header.alg].inline) return JwsSigner.signSync(header, payload, key);
  const input = JwsSigner.input(header, payload);
  return new Promise((resolve, reject) =>
    sign(SPECS[header.alg].hash, Buffer.from(input), JwsSigner.signingKey(header.alg, key), (err, signature) => (err ? reject(err) : resolve(JwsSigner.finish(header.alg, input, signature)))),
  );
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
  if (lowS && alg === 'ES256' && !JwsSigner.isLowS(decoded.signature)) return Promise.resolve(false);
  const spec = SPECS[alg];
  return new Promise((resolve) =>
    verify(spec.hash, Buffer.from(decoded.input), spec.dsaEncoding ? { key, dsaEncoding: spec.dsaEncoding } : key, decoded.signature, (err, ok) => resolve(!err && ok)),
  );
}
