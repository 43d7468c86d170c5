import { generateKeyPairSync } from 'node:crypto';
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
