/**
 * Security profiles per tenant: a `fapi2-security` tenant beside `baseline` ones. What the FAPI
 * tenant refuses (a request not pushed, PKCE plain, a token request without DPoP, a
 * client_secret client, an assertion for another audience than the issuer) the baseline tenant
 * takes; a FAPI client with PAR, private_key_jwt and DPoP passes through oauth4webapi and
 * openid-client. One tenant's profile never changes another's.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, SignJWT, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { ADMIN_BOOTSTRAP, adminCall, adminToken } from '../support/admin.js';
import { Browser } from '../support/browser.js';
import { ContractFetch } from '../support/contract-fetch.js';
import { decodeJwt, jsonOf, oauthError, RelyingParty } from '../support/rp.js';
import { ALICE_PASSWORD, REDIRECT, startTestServer, type TestServer } from '../support/server.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

let server: TestServer;
let acme: RelyingParty;
let fapi: RelyingParty;
let signed: RelyingParty;
let ops: string;
const contract = new ContractFetch();
let key: { privateKey: CryptoKey; publicJwk: JWK };

const call = (method: string, path: string, body?: unknown) => adminCall(server, contract, method, path, ops, body);

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  key = { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid: 'fapi-1' } };
  const jwks = JSON.stringify({ keys: [key.publicJwk] });
  const yaml = `${ADMIN_BOOTSTRAP}
  - id: fapi
    security_profile: fapi2-security
    signing_alg: ES256
    clients:
      - client_id: fapi-web
        token_endpoint_auth_method: private_key_jwt
        jwks: ${jwks}
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code, refresh_token, client_credentials]
        scope: "openid offline_access"
        first_party: true
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
  - id: signed
    security_profile: fapi2-message-signing
    signing_alg: EdDSA
    clients:
      - client_id: fapi-web
        token_endpoint_auth_method: private_key_jwt
        jwks: ${jwks}
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid"
        first_party: true
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
`;
  server = await startTestServer(yaml);
  acme = await RelyingParty.discover(server, contract);
  fapi = await RelyingParty.discover(server, contract, 'fapi');
  fapi.auths.set('fapi-web', () => oauth.PrivateKeyJwt({ key: key.privateKey, kid: 'fapi-1' }));
  signed = await RelyingParty.discover(server, contract, 'signed');
  signed.auths.set('fapi-web', () => oauth.PrivateKeyJwt({ key: key.privateKey, kid: 'fapi-1' }));
  ops = await adminToken(server, 'ops');
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  expect(contract.violations.splice(0)).toEqual([]);
});

const dpopKeys = async () => {
  const pair = await generateKeyPair('ES256');
  return pair;
};

/** Pushes an authorization request of fapi-web (S256 unless told), signs alice in, and returns the callback's code parameters. */
async function fapiCode(extra: Record<string, string> = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const params = new URLSearchParams({ response_type: 'code', redirect_uri: REDIRECT, scope: 'openid offline_access', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, nonce, ...extra });
  const pushedRes = await oauth.pushedAuthorizationRequest(fapi.as, fapi.client('fapi-web'), fapi.auth('fapi-web'), params, fapi.options);
  const pushed = await oauth.processPushedAuthorizationResponse(fapi.as, fapi.client('fapi-web'), pushedRes);
  const browser = fapi.browser();
  let res = await browser.follow(fapi.authorizeUrl({ client_id: 'fapi-web', request_uri: pushed.request_uri }), server.baseUrl);
  const form = Browser.form(await res.text());
  res = await browser.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD });
  expect(res.status).toBe(302);
  const callback = oauth.validateAuthResponse(fapi.as, fapi.client('fapi-web'), new URL(res.headers.get('location')!), state);
  return { callback, verifier, nonce };
}

describe('discovery', () => {
  it("announces exactly what each tenant's profile allows", () => {
    expect(fapi.as).toMatchObject({
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
      introspection_endpoint_auth_methods_supported: ['private_key_jwt'],
      revocation_endpoint_auth_methods_supported: ['private_key_jwt'],
      code_challenge_methods_supported: ['S256'],
      require_pushed_authorization_requests: true,
      require_signed_request_object: false,
      id_token_signing_alg_values_supported: ['ES256', 'EdDSA'],
      authorization_signing_alg_values_supported: ['ES256', 'EdDSA'],
      token_endpoint_auth_signing_alg_values_supported: ['ES256', 'PS256', 'EdDSA', 'Ed25519'],
      dpop_signing_alg_values_supported: ['ES256', 'PS256', 'EdDSA', 'Ed25519'],
      request_object_signing_alg_values_supported: ['PS256', 'ES256', 'EdDSA'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(acme.as).toMatchObject({
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none', 'client_secret_jwt'],
      code_challenge_methods_supported: ['S256', 'plain'],
      require_pushed_authorization_requests: false,
      id_token_signing_alg_values_supported: ['RS256', 'ES256', 'EdDSA'],
    });
    expect(acme.as.dpop_signing_alg_values_supported).toContain('RS256');
  });
});

describe('a fapi2-security client', () => {
  it('passes through oauth4webapi with PAR, private_key_jwt and DPoP; its ID token is ES256; its refresh token is not rotated', async () => {
    const { callback, verifier, nonce } = await fapiCode();
    const { privateKey, publicKey } = await dpopKeys();
    const dpop = oauth.DPoP(fapi.client('fapi-web'), { privateKey, publicKey });
    const redeem = () => oauth.authorizationCodeGrantRequest(fapi.as, fapi.client('fapi-web'), fapi.auth('fapi-web'), callback, REDIRECT, verifier, { ...fapi.options, DPoP: dpop });
    const tokens = await oauth.processAuthorizationCodeResponse(fapi.as, fapi.client('fapi-web'), await redeem(), { expectedNonce: nonce, requireIdToken: true });
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).payload.cnf).toEqual({ jkt: await calculateJwkThumbprint(await exportJWK(publicKey)) });
    expect(decodeJwt(tokens.id_token!).header.alg).toBe('ES256');
    const refresh = async () => oauth.processRefreshTokenResponse(fapi.as, fapi.client('fapi-web'), await oauth.refreshTokenGrantRequest(fapi.as, fapi.client('fapi-web'), fapi.auth('fapi-web'), tokens.refresh_token!, { ...fapi.options, DPoP: dpop }));
    const first = await refresh();
    expect(first.token_type).toBe('dpop');
    // FAPI 2.0 Security Profile §5.3.2.1: no rotation; the same token serves again.
    expect(first.refresh_token).toBeUndefined();
    const second = await refresh();
    expect(second.access_token).not.toBe(first.access_token);
  });

  it('passes through openid-client: client_credentials with private_key_jwt and DPoP', async () => {
    const config = new client.Configuration(fapi.as, 'fapi-web', {}, client.PrivateKeyJwt({ key: key.privateKey, kid: 'fapi-1' }));
    client.allowInsecureRequests(config);
    config[client.customFetch] = contract.fetch;
    const keys = await client.randomDPoPKeyPair('ES256');
    const tokens = await client.clientCredentialsGrant(config, {}, { DPoP: client.getDPoPHandle(config, keys) });
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
  });
});

describe('refused at the fapi2-security tenant, taken at the baseline one', () => {
  it('an authorization request not pushed', async () => {
    const plainRequest = async (rp: RelyingParty, clientId: string) => (await rp.browser().follow((await rp.request({ clientId, scope: 'openid' })).url, server.baseUrl));
    const refused = await plainRequest(fapi, 'fapi-web');
    expect(refused.status).toBe(302);
    expect(Object.fromEntries(new URL(refused.headers.get('location')!).searchParams)).toMatchObject({ error: 'invalid_request', iss: fapi.issuer });
    const taken = await plainRequest(acme, 'web');
    expect(await taken.text()).toContain('name="password"');
  });

  it('PKCE plain', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const params = new URLSearchParams({ response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', code_challenge: verifier, code_challenge_method: 'plain' });
    const atFapi = await oauth.pushedAuthorizationRequest(fapi.as, fapi.client('fapi-web'), fapi.auth('fapi-web'), params, fapi.options);
    expect(await oauthError(oauth.processPushedAuthorizationResponse(fapi.as, fapi.client('fapi-web'), atFapi))).toMatchObject({ status: 400, error: 'invalid_request', description: 'this tenant requires code_challenge_method=S256' });
    const plain = await acme.signIn(acme.browser(), { method: 'plain', scope: 'openid' });
    expect(plain.callback?.searchParams.get('code')).toBeTruthy();
  });

  it('a token request without a DPoP proof', async () => {
    const { callback, verifier } = await fapiCode();
    const res = await oauth.authorizationCodeGrantRequest(fapi.as, fapi.client('fapi-web'), fapi.auth('fapi-web'), callback, REDIRECT, verifier, fapi.options);
    expect(await jsonOf(res)).toMatchObject({ status: 400, body: { error: 'invalid_dpop_proof', error_description: 'this tenant requires a DPoP proof with every token request' } });
    expect((await acme.tokens({ scope: 'openid' })).token_type).toBe('bearer');
  });

  it('a client assertion whose audience is the token endpoint rather than the issuer alone (FAPI 2.0 §5.3.2.1)', async () => {
    const assertion = (aud: string) =>
      new SignJWT({ jti: crypto.randomUUID() }).setProtectedHeader({ alg: 'ES256', kid: 'fapi-1' }).setIssuer('fapi-web').setSubject('fapi-web').setAudience(aud).setIssuedAt().setExpirationTime('1m').sign(key.privateKey);
    const proof = async () => {
      const { privateKey, publicKey } = await dpopKeys();
      const jwk = await exportJWK(publicKey);
      return new SignJWT({ htm: 'POST', htu: fapi.url('/token'), jti: crypto.randomUUID() }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk }).setIssuedAt().sign(privateKey);
    };
    const cc = async (aud: string) => fapi.post('/token', { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: await assertion(aud) }, { dpop: await proof() });
    expect(await jsonOf(await cc(fapi.url('/token')))).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect((await cc(fapi.issuer)).status).toBe(200);
  });

  it('a client_secret client: refused at registration (and at /token once the tenant turns to the profile), registered at baseline', async () => {
    const secretClient = { client_id: 'secretive', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic' };
    const refused = await call('POST', '/fapi/configuration/clients', secretClient);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('token_endpoint_auth_method client_secret_basic is not allowed by the security profile fapi2-security');
    expect((await call('POST', '/acme/configuration/clients', secretClient)).status).toBe(201);
    // beta turns to fapi2-security: its client_secret client is refused from then on; acme still takes its own.
    expect(await adminToken(server, 'beta')).toBeTruthy();
    expect((await call('PATCH', '/configuration/tenants/beta', { security_profile: 'fapi2-security' })).status).toBe(200);
    await expect(adminToken(server, 'beta')).rejects.toThrow(/no admin token: 401 .*invalid_client/);
    expect((await acme.clientCredentials('service')).access_token).toBeTruthy();
  });

  it('a signing_alg the profile does not allow', async () => {
    const res = await call('PATCH', '/configuration/tenants/fapi', { signing_alg: 'RS256' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('signing_alg RS256 is not allowed by the security profile fapi2-security');
    expect((await call('PATCH', '/configuration/tenants/acme', { signing_alg: 'RS256' })).status).toBe(200);
    expect((await call('PATCH', '/configuration/tenants/acme', { signing_alg: 'ES256' })).status).toBe(200);
  });
});

describe('fapi2-message-signing', () => {
  const params = async (extra: Record<string, string> = {}) => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const p = new URLSearchParams({ client_id: 'fapi-web', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, ...extra });
    return { verifier, state, params: p };
  };
  const push = async (p: URLSearchParams) => oauth.pushedAuthorizationRequest(signed.as, signed.client('fapi-web'), signed.auth('fapi-web'), p, signed.options);

  it('announces signed requests and signed responses only', () => {
    expect(signed.as).toMatchObject({ require_signed_request_object: true, require_pushed_authorization_requests: true, response_modes_supported: ['jwt', 'query.jwt', 'form_post.jwt'], id_token_signing_alg_values_supported: ['ES256', 'EdDSA'] });
  });

  it('refuses a pushed request that is not a request object, or that asks for a plain response', async () => {
    const unsigned = await params({ response_mode: 'jwt' });
    expect(await oauthError(oauth.processPushedAuthorizationResponse(signed.as, signed.client('fapi-web'), await push(unsigned.params)))).toMatchObject({ status: 400, error: 'invalid_request' });
    const plain = await params({ response_mode: 'query' });
    const request = await oauth.issueRequestObject(signed.as, signed.client('fapi-web'), plain.params, { key: key.privateKey, kid: 'fapi-1' });
    expect(await oauthError(oauth.processPushedAuthorizationResponse(signed.as, signed.client('fapi-web'), await push(new URLSearchParams({ request }))))).toMatchObject({ status: 400, error: 'invalid_request' });
  });

  it('takes a signed request object by PAR and answers with a JARM response signed with the tenant\'s alg, checked by oauth4webapi', async () => {
    const { state, params: p } = await params({ response_mode: 'jwt' });
    const request = await oauth.issueRequestObject(signed.as, signed.client('fapi-web'), p, { key: key.privateKey, kid: 'fapi-1' });
    const pushed = await oauth.processPushedAuthorizationResponse(signed.as, signed.client('fapi-web'), await push(new URLSearchParams({ request })));
    const browser = signed.browser();
    let res = await browser.follow(signed.authorizeUrl({ client_id: 'fapi-web', request_uri: pushed.request_uri }), server.baseUrl);
    const form = Browser.form(await res.text());
    res = await browser.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD });
    const callback = new URL(res.headers.get('location')!);
    expect(decodeJwt(callback.searchParams.get('response')!).header.alg).toBe('EdDSA');
    const validated = await oauth.validateJwtAuthResponse(signed.as, signed.client('fapi-web'), callback, state, signed.options);
    expect(validated.get('code')).toBeTruthy();
  });
});
