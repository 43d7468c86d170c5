import { endToEnd } from '../support/suite.js';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { decodeJwt, jsonOf, RelyingParty } from '../support/rp.js';
import { type TestServer, WEB_SECRET } from '../support/server.js';

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd((s) => ({ server, rp } = s));

const CACHE_PUBLIC = /^(?=.*\bpublic\b)(?=.*\bmax-age=\d+\b)/;

async function discover(tenant: string, algorithm: 'oidc' | 'oauth2'): Promise<{ res: Response; as: oauth.AuthorizationServer }> {
  const issuer = new URL(server.issuer(tenant));
  const res = await oauth.discoveryRequest(issuer, { algorithm, ...rp.options });
  return { res: res.clone(), as: await oauth.processDiscoveryResponse(issuer, res) };
}

describe('discovery documents', () => {
  it('serves the same document at both tenant paths and at the RFC 8414 path form', async () => {
    const oidc = await discover('acme', 'oidc');
    expect(oidc.res.url).toBe(`${server.baseUrl}/acme/.well-known/openid-configuration`);
    const rfc8414 = await discover('acme', 'oauth2');
    // oauth4webapi builds the RFC 8414 §3.1 URL: the well-known segment goes before the issuer's path.
    expect(rfc8414.res.url).toBe(`${server.baseUrl}/.well-known/oauth-authorization-server/acme`);
    const tenantPath = await contract.fetch(`${server.issuer('acme')}/.well-known/oauth-authorization-server`);
    const third = await tenantPath.json();
    expect(oidc.as.issuer).toBe(server.issuer('acme'));
    expect(rfc8414.as).toEqual(oidc.as);
    expect(third).toEqual(oidc.as);
    for (const res of [oidc.res, rfc8414.res, tenantPath]) {
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('cache-control')).toMatch(CACHE_PUBLIC);
    }
  });

  it('gives each tenant its own issuer', async () => {
    const other = await discover('other', 'oauth2');
    expect(other.as.issuer).toBe(server.issuer('other'));
    expect(other.as.token_endpoint).toBe(`${server.issuer('other')}/token`);
    // Profiles (security-profiles.e2e-spec.ts): a FAPI 2.0 tenant announces S256 alone.
    expect(other.as.code_challenge_methods_supported).toEqual(['S256', 'plain']);
  });

  it.each([
    '/nope/.well-known/openid-configuration',
    '/nope/.well-known/oauth-authorization-server',
    '/.well-known/oauth-authorization-server/nope',
    '/nope/.well-known/jwks.json',
  ])('answers %s for an unknown tenant with a 404 JSON error', async (path) => {
    const res = await contract.fetch(`${server.baseUrl}${path}`);
    const { status, headers, body } = await jsonOf(res);
    expect(status).toBe(404);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(body.error).toBe('not_found');
  });

  it.each([
    '/acme/.well-known/openid-configuration',
    '/acme/.well-known/oauth-authorization-server',
    '/.well-known/oauth-authorization-server/acme',
    '/.well-known/openid-configuration/acme',
    '/acme/.well-known/jwks.json',
  ])('answers HEAD %s with the header fields of the GET and no body (RFC 9110 §9.3.2)', async (path) => {
    const got = await contract.fetch(`${server.baseUrl}${path}`);
    const head = await contract.fetch(`${server.baseUrl}${path}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const fields = (res: Response) => ['content-type', 'content-length', 'cache-control', 'access-control-allow-origin'].map((h) => res.headers.get(h));
    expect(fields(head)).toEqual(fields(got));
    expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(await got.text()));
    expect((await contract.fetch(`${server.baseUrl}${path.replace('acme', 'nope')}`, { method: 'HEAD' })).status).toBe(404);
  });

  it('makes oauth4webapi refuse the document of an unknown tenant', async () => {
    await expect(discover('nope', 'oidc')).rejects.toThrow();
    expect(contract.checked).toBeGreaterThan(0);
  });

  it('announces exactly what works', async () => {
    const as = rp.as;
    expect([...as.code_challenge_methods_supported!].sort()).toEqual(['S256', 'plain']);
    expect([...as.grant_types_supported!].sort()).toEqual(['authorization_code', 'client_credentials', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']);
    expect(as.grant_types_supported).not.toContain('implicit');
    expect(as.grant_types_supported).not.toContain('password');
    expect(as.response_types_supported).toEqual(['code']);
    expect([...as.response_modes_supported!].sort()).toEqual(['form_post', 'form_post.jwt', 'jwt', 'query', 'query.jwt']);
    expect(as.authorization_signing_alg_values_supported).toEqual(['RS256', 'ES256', 'EdDSA']);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.request_parameter_supported).toBe(true);
    expect(as.request_object_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256', 'EdDSA']);
    expect(as.request_uri_parameter_supported).toBe(false);
    expect([...as.token_endpoint_auth_methods_supported!].sort()).toEqual(['client_secret_basic', 'client_secret_jwt', 'client_secret_post', 'none', 'private_key_jwt']);
    // Public clients cannot introspect (see introspect.e2e-spec.ts) but may revoke their own tokens (revoke.e2e-spec.ts).
    expect([...as.introspection_endpoint_auth_methods_supported!].sort()).toEqual(['client_secret_basic', 'client_secret_jwt', 'client_secret_post', 'private_key_jwt']);
    expect([...as.revocation_endpoint_auth_methods_supported!].sort()).toEqual(['client_secret_basic', 'client_secret_jwt', 'client_secret_post', 'none', 'private_key_jwt']);
    // RS256, the default of a client that registered none, first; then the others a client may register.
    expect(as.id_token_signing_alg_values_supported).toEqual(['RS256', 'ES256', 'EdDSA']);
    expect(decodeJwt((await rp.tokens({ scope: 'openid' })).id_token!).header.alg).toBe('RS256');
  });

  it('signs the ID tokens of a client that registered no id_token_signed_response_alg with RS256, which an RP expecting the default verifies', async () => {
    // An RP configured without the metadata's algorithm list: openid-client (oauth4webapi)
    // then accepts RS256 only (OpenID Connect Registration §2) and checks the signature
    // against the JWKS.
    const { id_token_signing_alg_values_supported: _listed, ...metadata } = rp.as;
    const config = new oidc.Configuration(metadata, 'web', {}, oidc.ClientSecretBasic(WEB_SECRET));
    oidc.allowInsecureRequests(config);
    config[oidc.customFetch] = contract.fetch;
    oidc.enableNonRepudiationChecks(config);
    const s = await rp.signIn(rp.browser(), { scope: 'openid offline_access' });
    const tokens = await oidc.authorizationCodeGrant(config, s.callback!, { pkceCodeVerifier: s.verifier, expectedState: s.state, expectedNonce: s.nonce, idTokenExpected: true });
    expect(decodeJwt(tokens.id_token!).header.alg).toBe('RS256');
    expect(tokens.claims()).toMatchObject({ iss: rp.issuer, aud: 'web', nonce: s.nonce });
    // The access token keeps the tenant's algorithm.
    expect(decodeJwt(tokens.access_token).header.alg).toBe('ES256');
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(decodeJwt(refreshed.id_token!).header.alg).toBe('RS256');
    expect(refreshed.claims()).toMatchObject({ sub: tokens.claims()!.sub, aud: 'web' });
  });

  it("signs the ID tokens of a client that registered id_token_signed_response_alg with that algorithm, verifiably, and takes them back as id_token_hint", async () => {
    const browser = rp.browser();
    const tokens = await rp.tokens({ clientId: 'spa-rs', scope: 'openid offline_access' }, browser);
    const { header } = decodeJwt(tokens.id_token!);
    expect(header.alg).toBe('RS256');
    expect(decodeJwt(tokens.access_token).header.alg).toBe('ES256');
    const refreshed = await rp.refresh('spa-rs', tokens.refresh_token!);
    expect(decodeJwt(refreshed.id_token!).header.alg).toBe('RS256');
    const jwks = (await (await contract.fetch(rp.as.jwks_uri!)).json()) as JSONWebKeySet;
    expect(jwks.keys.find((k) => k.kid === header.kid)).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    await jwtVerify(tokens.id_token!, createLocalJWKSet(jwks), { issuer: rp.issuer, audience: 'spa-rs', algorithms: ['RS256'] });
    const out = await browser.get(`${rp.as.end_session_endpoint}?id_token_hint=${tokens.id_token}`);
    expect(out.status).toBe(200);
    expect(await rp.active(refreshed.refresh_token!)).toBe(false);
  });

  it('announces only endpoints that answer (none is a 404)', async () => {
    const as = rp.as;
    const endpoints: Array<[keyof oauth.AuthorizationServer, 'GET' | 'POST', number]> = [
      ['authorization_endpoint', 'GET', 400],
      ['token_endpoint', 'POST', 401],
      ['introspection_endpoint', 'POST', 401],
      ['revocation_endpoint', 'POST', 401],
      ['pushed_authorization_request_endpoint', 'POST', 401],
      ['device_authorization_endpoint', 'POST', 401],
      ['authorization_challenge_endpoint', 'POST', 401],
      ['userinfo_endpoint', 'GET', 401],
      ['end_session_endpoint', 'GET', 200],
      ['jwks_uri', 'GET', 200],
    ];
    const announced = Object.keys(as).filter((k) => k.endsWith('_endpoint') || k === 'jwks_uri');
    expect(announced.sort()).toEqual(endpoints.map(([k]) => k).sort());
    for (const [key, method, expected] of endpoints) {
      const url = as[key] as string;
      expect(url.startsWith(`${as.issuer}/`)).toBe(true);
      const res = await contract.fetch(url, method === 'POST' ? { method, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' } : { method });
      await res.arrayBuffer();
      expect({ key, status: res.status }).toEqual({ key, status: expected });
    }
    // Every one of them was checked against its OpenAPI document.
    expect(contract.checked).toBeGreaterThanOrEqual(endpoints.length);
  });
});

describe('JWKS', () => {
  it('publishes the keys that sign ID tokens and access tokens, cacheable in public', async () => {
    const tokens = await rp.tokens();
    const service = await rp.clientCredentials('service');
    const res = await contract.fetch(rp.as.jwks_uri!);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(CACHE_PUBLIC);
    const jwks = (await res.json()) as JSONWebKeySet;
    const kids = jwks.keys.map((k) => k.kid);
    for (const jwt of [tokens.id_token!, tokens.access_token, service.access_token]) expect(kids).toContain(decodeJwt(jwt).header.kid);
    for (const key of jwks.keys) for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(secret);

    // The signatures verify with the published keys.
    const keySet = createLocalJWKSet(jwks);
    await expect(jwtVerify(tokens.id_token!, keySet, { issuer: rp.issuer, audience: 'web' })).resolves.toBeTruthy();
    await expect(jwtVerify(service.access_token, keySet, { issuer: rp.issuer, typ: 'at+jwt' })).resolves.toBeTruthy();

    // A resource server using oauth4webapi (RFC 9068) fetches the JWKS itself and accepts the access token.
    const request = new Request('https://api.example/orders', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const claims = await oauth.validateJwtAccessToken(rp.as, request, rp.issuer, rp.options);
    expect(claims).toMatchObject({ iss: rp.issuer, client_id: 'web', sub: decodeJwt(tokens.id_token!).payload.sub });
  });

  it('publishes a key for every ID token algorithm it announces before any token is signed with it', async () => {
    const res = await contract.fetch(`${server.issuer('other')}/.well-known/jwks.json`);
    const algs = ((await res.json()) as JSONWebKeySet).keys.map((k) => k.alg).sort();
    const announced = ((await (await contract.fetch(`${server.issuer('other')}/.well-known/openid-configuration`)).json()) as { id_token_signing_alg_values_supported: string[] }).id_token_signing_alg_values_supported;
    expect(algs).toEqual([...announced].sort());
  });

  it('publishes a different key set for another tenant', async () => {
    const acme = (await (await contract.fetch(rp.as.jwks_uri!)).json()) as JSONWebKeySet;
    const other = (await (await contract.fetch(`${server.issuer('other')}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    expect(other.keys.length).toBeGreaterThan(0);
    expect(other.keys.map((k) => k.kid).filter((kid) => acme.keys.some((a) => a.kid === kid))).toEqual([]);
  });
});
