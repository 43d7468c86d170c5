import { uuidV7 } from './hashing.js';

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
