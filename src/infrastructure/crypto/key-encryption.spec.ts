import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyEncryption } from './key-encryption.js';

describe('key encryption', () => {
  it('generates its key file once, readable by its owner only, and opens what it sealed after a restart', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'kek-')), 'data');
    const sealed = KeyEncryption.load(undefined, dir).seal('private key');
    expect(readdirSync(dir)).toEqual(['key-encryption.key']);
    expect(statSync(join(dir, 'key-encryption.key')).mode & 0o777).toBe(0o600);
    expect(KeyEncryption.load(undefined, dir).open(sealed)).toBe('private key');
  });

  it('refuses an empty or damaged key file by name instead of replacing it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kek-'));
    for (const content of ['', 'c2hvcnQ=']) {
      writeFileSync(join(dir, 'key-encryption.key'), content);
      expect(() => KeyEncryption.load(undefined, dir)).toThrow(`${join(dir, 'key-encryption.key')} must hold the base64 of exactly 32 bytes`);
    }
    expect(() => KeyEncryption.load('c2hvcnQ=', dir)).toThrow('KEY_ENCRYPTION_KEY must hold the base64 of exactly 32 bytes');
  });

  it('makes keyed hashes that repeat for a value and differ by purpose and key', () => {
    const a = KeyEncryption.load(Buffer.alloc(32, 1).toString('base64'), '.');
    const b = KeyEncryption.load(Buffer.alloc(32, 2).toString('base64'), '.');
    expect(a.keyedHash('p', 'alice')).toMatch(/^hmac-sha256:[A-Za-z0-9_-]{43}$/);
    expect(a.keyedHash('p', 'alice')).toBe(a.keyedHash('p', 'alice'));
    expect(a.keyedHash('q', 'alice')).not.toBe(a.keyedHash('p', 'alice'));
    expect(b.keyedHash('p', 'alice')).not.toBe(a.keyedHash('p', 'alice'));
  });
});
