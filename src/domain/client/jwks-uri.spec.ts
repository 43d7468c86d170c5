import { validateJwksUri } from './jwks-uri.js';

describe('validateJwksUri', () => {
  it.each(['https://keys.example.com/jwks.json', 'http://127.0.0.1:8443/jwks', 'http://10.0.0.5/keys'])('takes %s', (uri) => {
    expect(() => validateJwksUri(uri)).not.toThrow();
  });

  it.each([
    ['relative', '/jwks.json'],
    ['http on a public host', 'http://keys.example.com/jwks.json'],
    ['another scheme', 'file:///etc/passwd'],
    ['a fragment', 'https://keys.example.com/jwks.json#x'],
    ['credentials', 'https://u:p@keys.example.com/jwks.json'],
    ['too long', `https://keys.example.com/${'a'.repeat(2000)}`],
  ])('refuses %s', (_, uri) => {
    expect(() => validateJwksUri(uri)).toThrow(/jwks_uri/);
  });
});
