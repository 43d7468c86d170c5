import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientSecrets } from './client-secrets.js';
import { KeyEncryption } from './key-encryption.js';

// client_secret_jwt
describe('ClientSecrets for client_secret_jwt', () => {
  const keys = KeyEncryption.load(Buffer.alloc(32, 7).toString('base64'), mkdtempSync(join(tmpdir(), 'secrets-')));
  const secrets = new ClientSecrets(keys);
  const secret = secrets.generate('client_secret_jwt');

  it('generates a secret long enough for HS512, and a shorter one for other clients', () => {
    expect(Buffer.byteLength(secret)).toBeGreaterThanOrEqual(64);
    expect(Buffer.byteLength(secrets.generate())).toBeLessThan(64);
  });

  it('keeps the secret sealed for its tenant and client only, and only for client_secret_jwt', () => {
    const kept = secrets.keep('t', 'hs', secret, 'client_secret_jwt');
    expect(kept.sealed).toBeDefined();
    expect(kept.sealed).not.toContain(secret);
    expect(secrets.verify('t', 'hs', secret, kept)).toBe(true);
    expect(secrets.open('t', 'hs', kept)).toBe(secret);
    expect(secrets.open('t', 'other', kept)).toBeUndefined();
    expect(secrets.open('u', 'hs', kept)).toBeUndefined();
    expect(secrets.keep('t', 'web', secret, 'client_secret_basic')).not.toHaveProperty('sealed');
    expect(secrets.open('t', 'web', secrets.keep('t', 'web', secret, 'client_secret_basic'))).toBeUndefined();
  });
});
