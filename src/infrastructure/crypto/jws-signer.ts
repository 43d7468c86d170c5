import { type KeyObject, sign } from 'node:crypto';
import type { SigningAlg } from '../../domain/tenant/tenant.events.js';

/**
 * Compact JWS (RFC 7515) over a JSON payload, signed by OpenSSL. The class is also sent as
 * source text to the delivery thread (src/delivery/posting-thread.ts), which signs logout
 * tokens there: it names nothing from its module but `sign` (node:crypto), which the thread
 * defines.
 */
export class JwsSigner {
  /**
   * `inline`: signed in the calling thread; otherwise (signJwt) on libuv's thread pool, so that
   * the request thread serves other requests meanwhile. ES256 and RS256 go to the pool; Ed25519
   * is cheap enough to sign in the call.
   */
  static readonly SPECS: Record<SigningAlg, { hash: string | null; dsaEncoding?: 'ieee-p1363'; inline: boolean }> = {
    ES256: { hash: 'sha256', dsaEncoding: 'ieee-p1363', inline: false },
    RS256: { hash: 'sha256', inline: false },
    EdDSA: { hash: null, inline: true },
  };

  /** The order n of the P-256 group (SEC 2 §2.4.2), and n / 2. */
  static readonly P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
  static readonly P256_HALF_N = JwsSigner.P256_N >> 1n;

  /** The signing input: base64url of the header, a dot, base64url of the payload. */
  static input(header: Record<string, unknown>, payload: Record<string, unknown>): string {
    return `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  }

  /** The key as OpenSSL takes it for `alg` (ES256 signatures as r || s). */
  static signingKey(alg: SigningAlg, key: KeyObject): KeyObject | { key: KeyObject; dsaEncoding: 'ieee-p1363' } {
    const spec = JwsSigner.SPECS[alg];
    return spec.dsaEncoding ? { key, dsaEncoding: spec.dsaEncoding } : key;
  }

  /** The token from its signing input and OpenSSL's signature. */
  static finish(alg: SigningAlg, input: string, signature: Buffer): string {
    return `${input}.${(alg === 'ES256' ? JwsSigner.lowS(signature) : signature).toString('base64url')}`;
  }

  /** Signs in the calling thread. */
  static signSync(header: Record<string, unknown> & { alg: SigningAlg }, payload: Record<string, unknown>, key: KeyObject): string {
    const input = JwsSigner.input(header, payload);
    return JwsSigner.finish(header.alg, input, sign(JwsSigner.SPECS[header.alg].hash, Buffer.from(input), JwsSigner.signingKey(header.alg, key)));
  }

  /**
   * ECDSA signatures come in pairs: with (r, s), (r, n - s) verifies too. ES256 signatures are
   * made with s in the lower half, and a key flagged `lowS` accepts only those, so its tokens
   * have one spelling (as with the base64url of a signature, see decodeJwt) and a list keyed by
   * token string cannot be sidestepped by flipping s. Keys made before the flag accept both.
   * These read and change only the public signature (r || s, 64 bytes); OpenSSL made it.
   */
  static sOf(signature: Buffer): bigint {
    return BigInt(`0x${signature.toString('hex', 32, 64)}`);
  }

  static isLowS(signature: Buffer): boolean {
    return signature.length === 64 && JwsSigner.sOf(signature) <= JwsSigner.P256_HALF_N;
  }

  /** `signature` with s replaced by n - s when s is in the upper half (in place). */
  static lowS(signature: Buffer): Buffer {
    const s = JwsSigner.sOf(signature);
    if (s > JwsSigner.P256_HALF_N) signature.write((JwsSigner.P256_N - s).toString(16).padStart(64, '0'), 32, 'hex');
    return signature;
  }
}
