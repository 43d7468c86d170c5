import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import type { SigningAlg } from '../../domain/tenant/tenant.events.js';

export type Jwk = Record<string, unknown> & { kty: string };

export interface KeyPairJwk {
  publicJwk: Jwk;
  privateJwk: Jwk;
}

const SPECS: Record<SigningAlg, { hash: string | null; dsaEncoding?: 'ieee-p1363' }> = {
  ES256: { hash: 'sha256', dsaEncoding: 'ieee-p1363' },
  RS256: { hash: 'sha256' },
  EdDSA: { hash: null },
};

export function generateKeyPairJwk(alg: SigningAlg): KeyPairJwk {
  const pair =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : alg === 'RS256'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ed25519');
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

/**
 * Compact JWS (RFC 7515) over a JSON payload. The signature is computed on libuv's thread
 * pool (the callback form of `crypto.sign`), so signing runs beside the request thread.
 */
export function signJwt(header: Record<string, unknown> & { alg: SigningAlg }, payload: Record<string, unknown>, key: KeyObject): Promise<string> {
  const input = `${b64(header)}.${b64(payload)}`;
  const spec = SPECS[header.alg];
  return new Promise((resolve, reject) =>
    sign(spec.hash, Buffer.from(input), spec.dsaEncoding ? { key, dsaEncoding: spec.dsaEncoding } : key, (err, signature) =>
      err ? reject(err) : resolve(`${input}.${signature.toString('base64url')}`),
    ),
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
    return { header, payload, input: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2], 'base64url') };
  } catch {
    return undefined;
  }
}

/** Checks the signature of a decoded JWS against a key of the given algorithm (on the thread pool); `alg: none` never passes. */
export function signatureValid(decoded: NonNullable<ReturnType<typeof decodeJwt>>, key: KeyObject, alg: SigningAlg): Promise<boolean> {
  if (decoded.header.alg !== alg) return Promise.resolve(false);
  const spec = SPECS[alg];
  return new Promise((resolve) =>
    verify(spec.hash, Buffer.from(decoded.input), spec.dsaEncoding ? { key, dsaEncoding: spec.dsaEncoding } : key, decoded.signature, (err, ok) => resolve(!err && ok)),
  );
}
