import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** What a sealed value is for: each purpose seals under a key of its own. */
export type SealPurpose = 'signing-key' | 'interaction' | 'webhook-secret' | /* client_secret_jwt */ 'client-secret' | /* Shared Signals push */ 'ssf-authorization' | /* edges' client certificates */ 'edge-ca' | /* MFA */ 'totp-secret' | /* native apps */ 'auth-session';

/** AES-GCM tag length: a shorter tag in a sealed value is refused, never checked as is. */
const TAG_BYTES = 16;

/**
 * Seals private signing keys before they enter the event log, and pending authorization
 * requests before they travel through the browser (AES-256-GCM). The key comes from
 * KEY_ENCRYPTION_KEY, or is generated once into DATA_DIR/key-encryption.key (0600). Each
 * purpose seals, and each keyed hash is made, under a key derived from it (HKDF), so a value
 * a browser hands back is never opened with the key that guards the signing keys.
 */
export class KeyEncryption {
  private readonly derived = new Map<string, Buffer>();

  private constructor(private readonly key: Buffer) {}

  /** A key for one use: `salt` tells sealing keys from hashing keys apart whatever the purpose strings. */
  private derive(salt: 'seal' | '', info: string): Buffer {
    const name = `${salt}\n${info}`;
    let key = this.derived.get(name);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.key, Buffer.from(salt), info, 32));
      this.derived.set(name, key);
    }
    return key;
  }

  /**
   * `hmac-sha256:<base64url>` of `value` under a key derived for `purpose`: equal values give
   * equal hashes, so the log can tell attempts apart, but a value of little entropy (a mistyped
   * username may be a password) cannot be found by hashing guesses without the key.
   */
  keyedHash(purpose: string, value: string): string {
    return `hmac-sha256:${this.keyedHasher(purpose)(value)}`;
  }

  /**
   * What `keyedHash` makes for `purpose`, without the scheme prefix, from a key derived and
   * imported once: for hashes made on every request (client secrets at the token endpoint).
   */
  keyedHasher(purpose: string): (value: string) => string {
    const key = createSecretKey(this.derive('', `authserver ${purpose}`));
    return (value) => createHmac('sha256', key).update(value).digest('base64url');
  }

  static load(configured: string | undefined, dataDir: string): KeyEncryption {
    const file = join(dataDir, 'key-encryption.key');
    if (!configured && !existsSync(file)) createKeyFile(file);
    const encoded = configured || readFileSync(file, 'utf8').trim();
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== 32) throw new Error(`${configured ? 'KEY_ENCRYPTION_KEY' : file} must hold the base64 of exactly 32 bytes`);
    return new KeyEncryption(key);
  }

  /**
   * `v2.<iv>.<tag>.<ciphertext>` under the key of `purpose`, bound to `context` (authenticated,
   * not stored: opening needs the same context, e.g. the tenant and kid of a signing key).
   */
  seal(purpose: SealPurpose, plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.derive('seal', `authserver ${purpose}`), iv, { authTagLength: TAG_BYTES }).setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v2', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /**
   * What `seal` sealed for this purpose and context; throws on anything else. Signing keys
   * sealed before purposes existed (`v1`: the root key, no context) still open.
   */
  open(purpose: SealPurpose, sealed: string, context: string): string {
    const [v, iv, tag, body, extra] = sealed.split('.');
    const legacy = v === 'v1' && purpose === 'signing-key';
    if ((v !== 'v2' && !legacy) || extra !== undefined || body === undefined) throw new Error('unknown sealed value format');
    const authTag = Buffer.from(tag, 'base64url');
    if (authTag.length !== TAG_BYTES) throw new Error('sealed value has a short tag');
    const key = legacy ? this.key : this.derive('seal', `authserver ${purpose}`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    if (!legacy) decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(authTag);
    try {
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch (cause) {
      throw new SealedValueError(`sealed value does not open with this key-encryption key for this ${purpose} (sealed with another key or for another one, or altered)`, { cause });
    }
  }
}

/** A sealed value that does not open: another key-encryption key, another context, or altered. */
export class SealedValueError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SealedValueError';
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
