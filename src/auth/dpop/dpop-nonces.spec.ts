import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { DpopNonces, NONCE_PERIOD } from './dpop-nonces.js';

const keyOf = (byte: number) => KeyEncryption.load(Buffer.alloc(32, byte).toString('base64'), '.');

describe('DPoP nonces', () => {
  const nonces = new DpopNonces(keyOf(1));
  const t = 1_800_000_000;

  it('takes a nonce of the current and of the previous window, not older or ahead', () => {
    const n = nonces.current('acme', t);
    expect(nonces.valid('acme', n, t)).toBe(true);
    expect(nonces.valid('acme', n, t + NONCE_PERIOD)).toBe(true);
    expect(nonces.valid('acme', n, t + 2 * NONCE_PERIOD)).toBe(false);
    expect(nonces.valid('acme', nonces.current('acme', t + NONCE_PERIOD), t)).toBe(false);
  });

  it("refuses another tenant's nonce, another key's, a forged MAC and what is not a nonce", () => {
    const n = nonces.current('acme', t);
    expect(nonces.valid('other', n, t)).toBe(false);
    expect(new DpopNonces(keyOf(2)).valid('acme', n, t)).toBe(false);
    expect(nonces.valid('acme', `${n.split('.')[0]}.AAAA`, t)).toBe(false);
    for (const bad of [undefined, 42, '', '.', 'x.y', n.replace('.', '')]) expect(nonces.valid('acme', bad, t)).toBe(false);
  });

  it('is the same on every server that shares the key', () => {
    expect(new DpopNonces(keyOf(1)).valid('acme', nonces.current('acme', t), t)).toBe(true);
  });
});
