import { generateKeyPairSync } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { jwksProblem, keyFitsAlg } from './client-jwks.js';

const jwkOf = (type: 'ec' | 'rsa' | 'ed25519', part: 'publicKey' | 'privateKey' = 'publicKey', bits = 2048) => {
  const pair = type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: bits }) : generateKeyPairSync('ed25519');
  return pair[part].export({ format: 'jwk' }) as Record<string, unknown> & { kty: string };
};

describe('client jwks (private_key_jwt)', () => {
  it('takes public EC, RSA and Ed25519 keys, one at least fit for the registered alg', () => {
    const keys = [jwkOf('ec'), jwkOf('rsa'), jwkOf('ed25519')];
    expect(jwksProblem({ keys }, undefined)).toBeUndefined();
    for (const alg of ['ES256', 'RS256', 'PS256', 'EdDSA', 'Ed25519']) expect(jwksProblem({ keys }, alg)).toBeUndefined();
    expect(jwksProblem({ keys: [jwkOf('ec')] }, 'RS256')).toMatch(/no key in jwks fits/);
    expect(keyFitsAlg(jwkOf('ec'), 'none')).toBe(false);
  });

  it('refuses private and symmetric keys, short RSA keys, keys OpenSSL cannot import and what is no JWK Set', () => {
    expect(jwksProblem({ keys: [jwkOf('ec', 'privateKey')] }, undefined)).toMatch(/private or symmetric/);
    expect(jwksProblem({ keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }, undefined)).toMatch(/private or symmetric/);
    expect(jwksProblem({ keys: [jwkOf('rsa', 'publicKey', 1024)] }, undefined)).toMatch(/shorter than 2048/);
    expect(jwksProblem({ keys: [{ ...jwkOf('ec'), x: 'AAAA' }] }, undefined)).toMatch(/not a valid public key/);
    expect(jwksProblem({ keys: [{ ...jwkOf('ec'), use: 'enc' }] }, undefined)).toMatch(/signature key/);
    for (const bad of [null, [], { keys: [] }, { keys: 'x' }, { keys: [1] }, { keys: Array(11).fill(jwkOf('ec')) }]) expect(jwksProblem(bad, undefined)).toEqual(expect.any(String));
  });
});

describe('client jwks (request objects)', () => {
  it('takes a set of public keys, and refuses private or symmetric keys, an empty set, too many keys and what is no set', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const pub = await exportJWK(publicKey);
    expect(jwksProblem({ keys: [pub] })).toBeUndefined();
    expect(jwksProblem({ keys: [await exportJWK(privateKey)] })).toMatch(/private or symmetric/);
    expect(jwksProblem({ keys: [] })).toBe('jwks must hold 1 to 10 keys');
    expect(jwksProblem([pub])).toBe('jwks must be a JWK Set: {"keys": [...]}');
    expect(jwksProblem({ keys: [{ ...pub, kid: 'k'.repeat(17_000) }] })).toBe('jwks may be at most 16384 characters');
  });
});
