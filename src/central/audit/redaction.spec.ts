import { redacted, WITHHELD } from './redaction.js';

describe('audit redaction', () => {
  it('withholds password hashes, sealed private keys and secret digests, and leaves the rest as recorded', () => {
    const user = { tenantId: 't', userId: 'u', username: 'alice', passwordHash: 'scrypt$...', claims: { email: 'a@example.com' } };
    expect(redacted(user)).toEqual({ ...user, passwordHash: WITHHELD });
    const key = { tenantId: 't', kid: 'k', alg: 'ES256', publicJwk: { kty: 'EC' }, encryptedPrivateKey: 'sealed' };
    expect(redacted(key)).toEqual({ ...key, encryptedPrivateKey: WITHHELD });
    const client = { clientId: 'web', secretDigest: { scheme: 'hmac-sha256', hash: 'abc' }, redirectUris: ['https://x/cb'] };
    expect(redacted(client)).toEqual({ ...client, secretDigest: { scheme: 'hmac-sha256', hash: WITHHELD } });
    // client_secret_jwt
    const jwtClient = { clientId: 'hs', secretDigest: { scheme: 'hmac-sha256', hash: 'abc', sealed: 'v2.a.b.c' } };
    expect(redacted(jwtClient)).toEqual({ clientId: 'hs', secretDigest: { scheme: 'hmac-sha256', hash: WITHHELD, sealed: WITHHELD } });
    const webhook = { tenantId: 't', subscriptionId: 'w', url: 'https://x/hook', sealedSecret: 'v1.sealed' };
    expect(redacted(webhook)).toEqual({ ...webhook, sealedSecret: WITHHELD });
    const rotated = { refreshHash: 'sha256:x', fromHash: 'sha256:a', toHash: 'sha256:b', codeHash: 'sha256:c', cookieHash: 'sha256:d' };
    expect(redacted(rotated)).toEqual(rotated);
  });

  it('finds the fields at any depth and does not change its input', () => {
    const nested = { a: [{ passwordHash: 'h' }], b: { c: { encryptedPrivateKey: 'k' } } };
    expect(redacted(nested)).toEqual({ a: [{ passwordHash: WITHHELD }], b: { c: { encryptedPrivateKey: WITHHELD } } });
    expect(nested.a[0].passwordHash).toBe('h');
  });

  // Shared Signals: a push stream's sealed Authorization header.
  it("withholds a push stream's sealed Authorization header", () => {
    const stream = { tenantId: 't', streamId: 's', delivery: { method: 'urn:ietf:rfc:8935', endpointUrl: 'https://r/x', authorizationSealed: 'v2.sealed' } };
    expect(redacted(stream)).toEqual({ ...stream, delivery: { ...stream.delivery, authorizationSealed: WITHHELD } });
  });
});
