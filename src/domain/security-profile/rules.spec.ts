import { algConflict, allowedAlgs, clientConflict, defaultResponseAlg, profileOf } from './rules.js';

describe('security profile rules', () => {
  it('reads each tenant its own profile, and the strictest for a name this build does not know', () => {
    expect(profileOf({ securityProfile: 'baseline' }).codeChallengeMethods).toEqual(['S256', 'plain']);
    expect(profileOf({ securityProfile: 'fapi2-security' })).toMatchObject({ requirePushedRequests: true, requireDpop: true, requireSignedRequests: false, rotateRefreshTokens: false });
    expect(profileOf({ securityProfile: 'fapi2-message-signing' })).toMatchObject({ requireSignedRequests: true, responseModes: ['jwt', 'query.jwt', 'form_post.jwt'] });
    expect(profileOf({ securityProfile: 'strict' })).toBe(profileOf({ securityProfile: 'fapi2-message-signing' }));
    expect(profileOf({ securityProfile: '__proto__' })).toBe(profileOf({ securityProfile: 'fapi2-message-signing' }));
  });

  it('limits algs to PS256, ES256 and EdDSA under FAPI 2.0, and leaves baseline whole', () => {
    expect(allowedAlgs(profileOf({ securityProfile: 'fapi2-security' }), ['RS256', 'PS256', 'ES256', 'EdDSA'])).toEqual(['PS256', 'ES256', 'EdDSA']);
    expect(allowedAlgs(profileOf({ securityProfile: 'baseline' }), ['RS256', 'ES256'])).toEqual(['RS256', 'ES256']);
    expect(algConflict('fapi2-security', { signing_alg: 'RS256' })).toMatch(/^signing_alg RS256 is not allowed/);
    expect(algConflict('fapi2-security', { signing_alg: 'ES256' })).toBeUndefined();
    expect(algConflict('baseline', { signing_alg: 'RS256' })).toBeUndefined();
  });

  it('gives ID tokens and JARM responses the tenant alg by default where RS256 is not allowed', () => {
    expect(defaultResponseAlg({ securityProfile: 'baseline', signingAlg: 'ES256' })).toBe('RS256');
    expect(defaultResponseAlg({ securityProfile: 'fapi2-security', signingAlg: 'EdDSA' })).toBe('EdDSA');
  });

  it('refuses a client the profile could never serve', () => {
    expect(clientConflict('fapi2-security', { tokenEndpointAuthMethod: 'none' })).toMatch(/token_endpoint_auth_method none/);
    expect(clientConflict('fapi2-security', { tokenEndpointAuthMethod: 'private_key_jwt', tokenEndpointAuthSigningAlg: 'RS256' })).toMatch(/token_endpoint_auth_signing_alg RS256/);
    expect(clientConflict('fapi2-security', { tokenEndpointAuthMethod: 'private_key_jwt', authorizationSignedResponseAlg: 'ES256' })).toBeUndefined();
    expect(clientConflict('baseline', { tokenEndpointAuthMethod: 'client_secret_basic', idTokenSignedResponseAlg: 'RS256' })).toBeUndefined();
  });
});
