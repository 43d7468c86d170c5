import { exportJWK, generateKeyPair } from 'jose';
import { jwksProblem } from './client-jwks.js';

describe('client jwks', () => {
  it('takes a set of public keys, and refuses private or symmetric keys, an empty set and too many keys', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const pub = await exportJWK(publicKey);
    expect(jwksProblem({ keys: [pub] })).toBeUndefined();
    expect(jwksProblem({ keys: [await exportJWK(privateKey)] })).toBe('jwks must hold public keys only');
    expect(jwksProblem({ keys: [{ kty: 'oct', k: 'c2VjcmV0' }] })).toBe('every key in jwks must have kty RSA, EC or OKP');
    expect(jwksProblem({ keys: [] })).toBe('jwks must hold at least one key in "keys"');
    expect(jwksProblem([pub])).toBe('jwks must be a JWK Set: {"keys": [...]}');
    expect(jwksProblem({ keys: Array(11).fill(pub) })).toBe('jwks may hold at most 10 keys');
  });
});
