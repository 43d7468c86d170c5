import { randomToken, uuidV7 } from './hashing.js';

describe('uuidV7', () => {
  it('has the version 7 layout and carries its millisecond time', () => {
    const id = uuidV7(0x0123456789ab);
    expect(id).toMatch(/^01234567-89ab-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('sorts ids made in later milliseconds after earlier ones, and never repeats', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => uuidV7(1_700_000_000_000 + i));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 5000 }, () => uuidV7())).size).toBe(5000);
  });
});

describe('randomToken', () => {
  it('gives 256-bit base64url values that never repeat, across many refills of the pool', () => {
    const tokens = Array.from({ length: 1000 }, () => randomToken());
    expect(tokens.every((t) => /^[A-Za-z0-9_-]{43}$/.test(t))).toBe(true);
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(randomToken(16)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(randomToken(5000), 'base64url')).toHaveLength(5000);
  });
});
