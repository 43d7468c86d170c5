import { randomInt } from 'node:crypto';

/** RFC 8628 §6.1: consonants only, without look-alikes (no vowels, so no words either). */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const LENGTH = 8;
const VALID = new RegExp(`^[${USER_CODE_ALPHABET}]{${LENGTH}}$`);

/** A fresh user code as shown to the user: `XXXX-XXXX` (20^8, about 2^34.6). */
export function newUserCode(): string {
  const chars = Array.from({ length: LENGTH }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]);
  return `${chars.slice(0, 4).join('')}-${chars.slice(4).join('')}`;
}

/** RFC 8628 §6.1: what the user typed, case-insensitive, dashes and spaces ignored; undefined when it cannot be a user code. */
export function normalUserCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  return VALID.test(code) ? code : undefined;
}
