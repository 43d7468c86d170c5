import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { decodeJwt, signatureValid, signJwt } from './jws.js';

const ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** The same token with s replaced by n - s: a second valid ECDSA signature of the same input. */
function flipped(token: string): string {
  const [h, p, sig] = token.split('.');
  const bytes = Buffer.from(sig, 'base64url');
  const s = BigInt(`0x${bytes.subarray(32).toString('hex')}`);
  const other = Buffer.concat([bytes.subarray(0, 32), Buffer.from((ORDER - s).toString(16).padStart(64, '0'), 'hex')]);
  return `${h}.${p}.${other.toString('base64url')}`;
}

describe('JWS', () => {
  // Nonce state kept between signatures (a pool made ahead) outlives the request and is
  // replayed by a cloned process: each ES256 signature is OpenSSL's own, made in the call.
  // First in the file, so that nothing has signed before it.
  it('signs ES256 with OpenSSL in the call, starting no thread of its own, and OpenSSL verifies every signature', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const threads = () => readdirSync('/proc/self/task').length;
    // A verification starts libuv's thread pool, before counting: only what signing adds counts.
    const input = `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.e30`;
    const made = `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    expect(await signatureValid(decodeJwt(made)!, publicKey, 'ES256')).toBe(true);
    const before = threads();
    for (let i = 0; i < 300; i++) {
      const token = await signJwt({ alg: 'ES256', kid: 'k' }, { n: i }, privateKey);
      const decoded = decodeJwt(token)!;
      expect(verify('sha256', Buffer.from(decoded.input), { key: publicKey, dsaEncoding: 'ieee-p1363' }, decoded.signature)).toBe(true);
    }
    expect(threads()).toBe(before);
  });

  it('gives an ES256 token of a low-S key a single spelling: s is always in the lower half, and the other half is refused', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    for (let i = 0; i < 40; i++) {
      const token = await signJwt({ alg: 'ES256', kid: 'k' }, { n: i }, privateKey);
      expect(await signatureValid(decodeJwt(token)!, publicKey, 'ES256', true)).toBe(true);
      const twin = decodeJwt(flipped(token))!;
      expect(await signatureValid(twin, publicKey, 'ES256', true)).toBe(false);
      // A key made before the flag still accepts both halves (its old tokens signed with either).
      expect(await signatureValid(twin, publicKey, 'ES256')).toBe(true);
    }
  });
});
