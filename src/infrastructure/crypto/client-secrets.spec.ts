import { ClientSecrets } from './client-secrets.js';
import { sha256 } from './hashing.js';
import { KeyEncryption } from './key-encryption.js';

const keyOf = (byte: number) => KeyEncryption.load(Buffer.alloc(32, byte).toString('base64'), '.');
const SECRET = 'a-weak-but-long-enough-secret-0123456789';

describe('client secrets', () => {
  const secrets = new ClientSecrets(keyOf(1));

  it('keeps a keyed hash, never the bare SHA-256 of the secret, and verifies it', () => {
    const digest = secrets.digest('acme', 'web', SECRET);
    expect(digest).toEqual({ scheme: 'hmac-sha256', hash: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(JSON.stringify(digest)).not.toContain(sha256(SECRET).slice('sha256:'.length));
    expect(secrets.verify('acme', 'web', SECRET, digest)).toBe(true);
    expect(secrets.verify('acme', 'web', `${SECRET}x`, digest)).toBe(false);
  });

  it('binds the digest to the tenant and the client: equal secrets do not show as equal', () => {
    const digest = secrets.digest('acme', 'web', SECRET);
    expect(secrets.digest('acme', 'api', SECRET)).not.toEqual(digest);
    expect(secrets.digest('other', 'web', SECRET)).not.toEqual(digest);
    expect(secrets.verify('acme', 'api', SECRET, digest)).toBe(false);
  });

  it('cannot verify a secret from a copy of the log under another key-encryption key', () => {
    const digest = secrets.digest('acme', 'web', SECRET);
    expect(new ClientSecrets(keyOf(2)).verify('acme', 'web', SECRET, digest)).toBe(false);
    expect(new ClientSecrets(keyOf(1)).verify('acme', 'web', SECRET, digest)).toBe(true);
  });

  it('still verifies a secret kept as a bare SHA-256 (clients registered before the keyed hash)', () => {
    const legacy = { scheme: 'sha256' as const, hash: sha256(SECRET).slice('sha256:'.length) };
    expect(secrets.verify('acme', 'web', SECRET, legacy)).toBe(true);
    expect(secrets.verify('acme', 'web', `${SECRET}x`, legacy)).toBe(false);
    expect(secrets.verify('acme', 'web', SECRET, { scheme: 'md5', hash: legacy.hash } as never)).toBe(false);
  });

  it('generates 256-bit secrets', () => {
    const a = secrets.generate();
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(secrets.generate()).not.toBe(a);
  });
});
