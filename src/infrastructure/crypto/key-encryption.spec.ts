import { createCipheriv, randomBytes } from 'node:crypto';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp-dir.js';
import { KeyEncryption } from './key-encryption.js';

describe('key encryption', () => {
  it('generates its key file once, readable by its owner only, and opens what it sealed after a restart', () => {
    const dir = join(tempDir('kek-'), 'data');
    const sealed = KeyEncryption.load(undefined, dir).seal('signing-key', 'private key', 'acme|kid');
    expect(readdirSync(dir)).toEqual(['key-encryption.key']);
    expect(statSync(join(dir, 'key-encryption.key')).mode & 0o777).toBe(0o600);
    expect(KeyEncryption.load(undefined, dir).open('signing-key', sealed, 'acme|kid')).toBe('private key');
  });

  it('refuses an empty or damaged key file by name instead of replacing it', () => {
    const dir = tempDir('kek-');
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

  it('opens a sealed value only for its purpose and context, and only with a whole tag', () => {
    const k = KeyEncryption.load(Buffer.alloc(32, 3).toString('base64'), '.');
    const sealed = k.seal('interaction', 'pending request', 'acme');
    expect(k.open('interaction', sealed, 'acme')).toBe('pending request');
    // A value a browser hands back never opens as a signing key, nor for another tenant.
    expect(() => k.open('signing-key', sealed, 'acme')).toThrow();
    expect(() => k.open('interaction', sealed, 'other')).toThrow();
    // A tag cut short is refused before it is checked (GCM would check the short tag as given).
    const [v, iv, tag, body] = sealed.split('.');
    for (const bytes of [4, 8, 12]) {
      const short = [v, iv, Buffer.from(tag, 'base64url').subarray(0, bytes).toString('base64url'), body].join('.');
      expect(() => k.open('interaction', short, 'acme')).toThrow('short tag');
    }
  });

  it('still opens signing keys sealed before purposes existed (v1: the root key, no context), and nothing else in that form', () => {
    const root = Buffer.alloc(32, 4);
    const k = KeyEncryption.load(root.toString('base64'), '.');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', root, iv);
    const body = Buffer.concat([cipher.update('old private key', 'utf8'), cipher.final()]);
    const v1 = ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    expect(k.open('signing-key', v1, 'acme|kid')).toBe('old private key');
    expect(() => k.open('interaction', v1, 'acme')).toThrow('unknown sealed value format');
  });
});
