import { generateKeyPairSync, verify } from 'node:crypto';
import { P256_N, p256Nonces } from './p256-nonces.js';

const HALF_N = P256_N >> 1n;

/** Signs `input`, waiting (up to a few seconds) for the background thread's first pairs. */
async function signed(input: string, key: ReturnType<typeof generateKeyPairSync>['privateKey']): Promise<string> {
  for (let i = 0; i < 500; i++) {
    const signature = p256Nonces.sign(input, key);
    if (signature) return signature;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no precomputed nonce after 5 s');
}

describe('precomputed P-256 nonces', () => {
  it('make ES256 signatures that OpenSSL verifies, with s in the lower half and no r ever repeated', async () => {
    const keys = [generateKeyPairSync('ec', { namedCurve: 'P-256' }), generateKeyPairSync('ec', { namedCurve: 'P-256' })];
    const seenR = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const { privateKey, publicKey } = keys[i % 2];
      const input = `header.payload-${i}`;
      const signature = Buffer.from(await signed(input, privateKey), 'base64url');
      expect(signature).toHaveLength(64);
      expect(verify('sha256', Buffer.from(input), { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
      // Not valid for any other input, nor under the other key.
      expect(verify('sha256', Buffer.from(`${input}x`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(false);
      expect(verify('sha256', Buffer.from(input), { key: keys[(i + 1) % 2].publicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(false);
      expect(BigInt(`0x${signature.subarray(32).toString('hex')}`) <= HALF_N).toBe(true);
      const r = signature.subarray(0, 32).toString('hex');
      expect(seenR.has(r)).toBe(false);
      seenR.add(r);
    }
  });
});
