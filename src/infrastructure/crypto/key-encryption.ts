import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Seals private signing keys before they enter the event log (AES-256-GCM). The key comes
 * from KEY_ENCRYPTION_KEY, or is generated once into DATA_DIR/key-encryption.key (0600).
 * Keyed hashes for the log are made with keys derived from it (HKDF), one per purpose.
 */
export class KeyEncryption {
  private readonly derived = new Map<string, Buffer>();

  private constructor(private readonly key: Buffer) {}

  /**
   * `hmac-sha256:<base64url>` of `value` under a key derived for `purpose`: equal values give
   * equal hashes, so the log can tell attempts apart, but a value of little entropy (a mistyped
   * username may be a password) cannot be found by hashing guesses without the key.
   */
  keyedHash(purpose: string, value: string): string {
    let key = this.derived.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `authserver ${purpose}`, 32));
      this.derived.set(purpose, key);
    }
    return `hmac-sha256:${createHmac('sha256', key).update(value).digest('base64url')}`;
  }

  static load(configured: string | undefined, dataDir: string): KeyEncryption {
    const file = join(dataDir, 'key-encryption.key');
    if (!configured && !existsSync(file)) createKeyFile(file);
    const encoded = configured || readFileSync(file, 'utf8').trim();
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== 32) throw new Error(`${configured ? 'KEY_ENCRYPTION_KEY' : file} must hold the base64 of exactly 32 bytes`);
    return new KeyEncryption(key);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [v, iv, tag, body] = sealed.split('.');
    if (v !== 'v1') throw new Error('unknown sealed key format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/**
 * Writes a new key where `file` will be, whole or not at all: to a temporary file first,
 * synced, then renamed (and the directory synced), so a crash never leaves an empty or short
 * key beside a log whose signing keys were sealed with the real one.
 */
function createKeyFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, randomBytes(32).toString('base64'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
