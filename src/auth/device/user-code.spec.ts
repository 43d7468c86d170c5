import { newUserCode, normalUserCode, USER_CODE_ALPHABET } from './user-code.js';

describe('user codes', () => {
  it('are XXXX-XXXX from the alphabet without look-alikes', () => {
    for (let i = 0; i < 50; i++) {
      const code = newUserCode();
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
      expect(normalUserCode(code)).toBe(code.replace('-', ''));
    }
    expect(USER_CODE_ALPHABET).not.toMatch(/[AEIOU01]/);
  });

  it('are read case-insensitively, dashes and spaces ignored', () => {
    expect(normalUserCode(' bcdf-ghjk ')).toBe('BCDFGHJK');
    expect(normalUserCode('BCDF GHJK')).toBe('BCDFGHJK');
    expect(normalUserCode('bcdfghjk')).toBe('BCDFGHJK');
  });

  it('refuses what cannot be one', () => {
    expect(normalUserCode('BCDF-GHJ')).toBeUndefined();
    expect(normalUserCode('ABCD-EFGH')).toBeUndefined();
    expect(normalUserCode('BCDF-GHJK-L')).toBeUndefined();
    expect(normalUserCode('')).toBeUndefined();
  });
});
