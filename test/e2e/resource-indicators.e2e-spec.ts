/**
 * Resource indicators (RFC 8707) at /authorize, /par and /token; introspection by audience;
 * `dpop_jkt` (RFC 9449 §10). Through oauth4webapi and openid-client, responses checked against
 * openapi/.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { adminCall, adminClients, adminToken } from '../support/admin.js';
import { Browser } from '../support/browser.js';
import { decodeJwt, jsonOf, oauthError, RelyingParty } from '../support/rp.js';
import { endToEnd } from '../support/suite.js';
import { ALICE_PASSWORD, REDIRECT, SERVICE_SECRET, type TestServer, WEB_SECRET } from '../support/server.js';

const ORDERS = 'https://api.example.com/orders';
const BILLING = 'https://billing.example.com/';

const BOOTSTRAP = `
tenants:
  - id: acme
    clients:${adminClients()}
      - client_id: web
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code, refresh_token]
        scope: "openid profile offline_access orders:read orders:write bills:read"
        first_party: true
      - client_id: spa
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code, refresh_token]
        scope: "openid offline_access orders:read"
        token_endpoint_auth_method: none
        first_party: true
      - client_id: service
        client_secret: "${SERVICE_SECRET}"
        grant_types: [client_credentials]
        scope: "orders:read orders:write bills:read"
      - client_id: orders-api
        client_secret: "${SERVICE_SECRET}"
        grant_types: [client_credentials]
        scope: "bills:read"
      - client_id: stranger
        client_secret: "${SERVICE_SECRET}"
        grant_types: [client_credentials]
        scope: "bills:read"
    resources:
      - { id: orders, identifier: "${ORDERS}", scopes: ["orders:read", "orders:write"], introspection_clients: [orders-api] }
      - { id: billing, identifier: "${BILLING}", scopes: ["bills:read"] }
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
`;

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd(({ server: s, rp: r }) => {
  server = s;
  rp = r;
  for (const id of ['service', 'orders-api', 'stranger']) rp.auths.set(id, () => oauth.ClientSecretBasic(SERVICE_SECRET));
}, BOOTSTRAP);

async function clientCredentials(clientId: string, parameters: Record<string, string>) {
  const res = await oauth.clientCredentialsGrantRequest(rp.as, rp.client(clientId), rp.auth(clientId), parameters, rp.options);
  return oauth.processClientCredentialsResponse(rp.as, rp.client(clientId), res);
}

async function dpopKeys() {
  const pair = await generateKeyPair('ES256', { extractable: true });
  return { ...pair, jkt: await calculateJwkThumbprint(await exportJWK(pair.publicKey)) };
}

describe('resource at the token endpoint, client_credentials', () => {
  it('issues a token whose aud is the resource and whose scopes are only the ones it declares', async () => {
    const tokens = await clientCredentials('service', { resource: ORDERS });
    expect(tokens.scope).toBe('orders:read orders:write');
    const { payload } = decodeJwt(tokens.access_token);
    expect(payload.aud).toBe(ORDERS);
    expect(payload.scope).toBe('orders:read orders:write');
  });

  it('refuses a requested scope the resource does not declare with invalid_scope', async () => {
    expect(await oauthError(clientCredentials('service', { resource: ORDERS, scope: 'orders:read bills:read' }))).toMatchObject({ status: 400, error: 'invalid_scope' });
  });

  it.each([
    ['an unknown resource', 'https://unknown.example.com/api'],
    ['a URI with a fragment', `${ORDERS}#x`],
    ['a relative reference', '/orders'],
  ])('answers %s with invalid_target', async (_, resource) => {
    expect(await oauthError(clientCredentials('service', { resource }))).toMatchObject({ status: 400, error: 'invalid_target' });
  });

  it('gives a client holding none of the resource scopes a token for it without scope (the resource decides by roles)', async () => {
    const tokens = await clientCredentials('stranger', { resource: ORDERS });
    expect(tokens.scope).toBeUndefined();
    const { payload } = decodeJwt(tokens.access_token);
    expect(payload.aud).toBe(ORDERS);
    expect(payload).not.toHaveProperty('scope');
  });
});

describe('introspection by audience', () => {
  it("answers active only to the token's own client and to the resource server of its audience", async () => {
    const { access_token } = await clientCredentials('service', { resource: ORDERS });
    expect(await rp.introspect(access_token, 'stranger')).toEqual({ active: false });
    expect(await rp.introspect(access_token, 'orders-api')).toMatchObject({ active: true, client_id: 'service', aud: ORDERS, scope: 'orders:read orders:write' });
    expect(await rp.introspect(access_token, 'service')).toMatchObject({ active: true, aud: ORDERS });
    // Its client revokes it like any other of its tokens.
    await rp.revoke(access_token, 'service');
    expect(await rp.introspect(access_token, 'orders-api')).toEqual({ active: false });
  });

  it("tells another client nothing of a token without a resource, or of a resource that does not list it", async () => {
    const plain = await clientCredentials('service', {});
    expect(await rp.introspect(plain.access_token, 'stranger')).toEqual({ active: false });
    expect(await rp.introspect(plain.access_token, 'orders-api')).toEqual({ active: false });
    const billing = await clientCredentials('service', { resource: BILLING });
    expect(await rp.introspect(billing.access_token, 'orders-api')).toEqual({ active: false });
    const user = await rp.tokens({ scope: 'openid orders:read', extra: { resource: ORDERS } });
    expect(await rp.introspect(user.access_token, 'stranger')).toEqual({ active: false });
    expect(await rp.introspect(user.access_token, 'orders-api')).toMatchObject({ active: true, client_id: 'web', username: 'alice' });
  });
});

describe('introspection_clients through the admin API', () => {
  it('is set and read back on a resource; the listed client is told about its tokens from then on', async () => {
    const admin = await adminToken(server, 'acme');
    const { access_token } = await clientCredentials('service', { resource: BILLING });
    expect(await rp.introspect(access_token, 'stranger')).toEqual({ active: false });
    const patched = await adminCall(server, contract, 'PATCH', '/acme/configuration/resources/billing', admin, { introspection_clients: ['stranger'] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ identifier: BILLING, introspection_clients: ['stranger'] });
    expect(await rp.introspect(access_token, 'stranger')).toMatchObject({ active: true, aud: BILLING });
    expect((await adminCall(server, contract, 'PATCH', '/acme/configuration/resources/billing', admin, { introspection_clients: ['has space'] })).status).toBe(400);
  });
});

describe('resource at /authorize and the code and refresh grants', () => {
  it('grants the OpenID scopes and the resource ones; the access token is for the resource only, the ID token still comes', async () => {
    const tokens = await rp.tokens({ scope: 'openid profile offline_access orders:read bills:read', extra: { resource: ORDERS } });
    expect(tokens.scope).toBe('orders:read');
    expect(decodeJwt(tokens.access_token).payload).toMatchObject({ aud: ORDERS, scope: 'orders:read' });
    expect(tokens.id_token).toBeDefined();
    // A token for the resource is no token for the server's own userinfo (RFC 9068 §4).
    const userinfo = await oauth.userInfoRequest(rp.as, rp.client('web'), tokens.access_token, rp.options);
    await userinfo.body?.cancel();
    expect(userinfo.status).toBe(401);
    // A refresh stays with the grant's resource; another resource is invalid_target.
    const refreshed = await rp.refresh('web', tokens.refresh_token!);
    expect(decodeJwt(refreshed.access_token).payload).toMatchObject({ aud: ORDERS, scope: 'orders:read' });
    const other = oauth.refreshTokenGrantRequest(rp.as, rp.client('web'), rp.auth('web'), refreshed.refresh_token!, { ...rp.options, additionalParameters: { resource: BILLING } });
    expect(await oauthError(other.then((res) => oauth.processRefreshTokenResponse(rp.as, rp.client('web'), res)))).toMatchObject({ status: 400, error: 'invalid_target' });
  });

  it('redeems a code for another resource than its own with invalid_target, and then for its own', async () => {
    const s = await rp.signIn(rp.browser(), { scope: 'openid orders:read', extra: { resource: ORDERS } });
    const code = rp.codeParams(s);
    const redeem = (resource: string) =>
      oauth.authorizationCodeGrantRequest(rp.as, rp.client('web'), rp.auth('web'), code, s.redirectUri, s.verifier, { ...rp.options, additionalParameters: { resource } });
    expect(await oauthError(redeem(BILLING).then((res) => oauth.processAuthorizationCodeResponse(rp.as, rp.client('web'), res)))).toMatchObject({ status: 400, error: 'invalid_target' });
    const tokens = await oauth.processAuthorizationCodeResponse(rp.as, rp.client('web'), await redeem(ORDERS), { expectedNonce: s.nonce });
    expect(decodeJwt(tokens.access_token).payload.aud).toBe(ORDERS);
  });

  it('narrows a grant made without a resource to one resource at a refresh', async () => {
    const tokens = await rp.tokens({ scope: 'openid offline_access orders:read bills:read' });
    expect(decodeJwt(tokens.access_token).payload.aud).toBe(server.issuer());
    const res = await oauth.refreshTokenGrantRequest(rp.as, rp.client('web'), rp.auth('web'), tokens.refresh_token!, { ...rp.options, additionalParameters: { resource: BILLING } });
    const narrowed = await oauth.processRefreshTokenResponse(rp.as, rp.client('web'), res);
    expect(decodeJwt(narrowed.access_token).payload).toMatchObject({ aud: BILLING, scope: 'bills:read' });
  });

  it('sends invalid_target to the client for an unknown resource, and for two resources', async () => {
    const unknown = await rp.signIn(rp.browser(), { scope: 'openid orders:read', extra: { resource: 'https://unknown.example.com/' } });
    expect(unknown.callback?.searchParams.get('error')).toBe('invalid_target');
    const req = await rp.request({ scope: 'openid orders:read', extra: { resource: ORDERS } });
    const url = new URL(req.url);
    url.searchParams.append('resource', BILLING);
    const res = await rp.browser().follow(url.href, server.baseUrl);
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('leaves out the scopes the resource does not declare: with nothing left, invalid_scope; with OpenID ones only, a token without scope', async () => {
    const s = await rp.signIn(rp.browser(), { scope: 'bills:read', extra: { resource: ORDERS } });
    expect(s.callback?.searchParams.get('error')).toBe('invalid_scope');
    const tokens = await rp.tokens({ scope: 'openid bills:read', extra: { resource: ORDERS } });
    expect(tokens.scope).toBeUndefined();
    expect(decodeJwt(tokens.access_token).payload).toMatchObject({ aud: ORDERS });
    expect(decodeJwt(tokens.access_token).payload).not.toHaveProperty('scope');
    expect(decodeJwt(tokens.id_token!).payload.aud).toBe('web');
  });
});

describe('dpop_jkt', () => {
  it('binds the code to the key: another key or no proof is invalid_grant, the key itself redeems it', async () => {
    const keys = await dpopKeys();
    const s = await rp.signIn(rp.browser(), { clientId: 'spa', scope: 'openid offline_access', extra: { dpop_jkt: keys.jkt } });
    const code = rp.codeParams(s, 'spa');
    const redeem = (handle?: oauth.DPoPHandle) =>
      oauth.authorizationCodeGrantRequest(rp.as, rp.client('spa'), oauth.None(), code, s.redirectUri, s.verifier, { ...rp.options, ...(handle ? { DPoP: handle } : {}) });
    const other = oauth.DPoP(rp.client('spa'), await dpopKeys());
    expect(await oauthError(redeem(other).then((res) => oauth.processAuthorizationCodeResponse(rp.as, rp.client('spa'), res)))).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(await oauthError(redeem().then((res) => oauth.processAuthorizationCodeResponse(rp.as, rp.client('spa'), res)))).toMatchObject({ status: 400, error: 'invalid_grant' });
    const tokens = await oauth.processAuthorizationCodeResponse(rp.as, rp.client('spa'), await redeem(oauth.DPoP(rp.client('spa'), keys)), { expectedNonce: s.nonce });
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).payload.cnf).toEqual({ jkt: keys.jkt });
  });

  it('answers a dpop_jkt that is not a thumbprint with invalid_request', async () => {
    const s = await rp.signIn(rp.browser(), { clientId: 'spa', scope: 'openid', extra: { dpop_jkt: 'not-a-thumbprint' } });
    expect(s.callback?.searchParams.get('error')).toBe('invalid_request');
  });
});

describe('through openid-client: PAR with resource and dpop_jkt', () => {
  async function parSignIn(config: client.Configuration, params: Record<string, string>) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = await client.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: REDIRECT,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ...params,
    });
    const browser = new Browser(contract.fetch);
    let res = await browser.follow(url.href, server.baseUrl);
    const form = Browser.form(await res.text());
    res = await browser.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD });
    expect(res.status).toBe(302);
    return { verifier, state, callback: new URL(res.headers.get('location')!) };
  }

  it('issues a DPoP-bound token for the resource; a pushed unknown resource is invalid_target', async () => {
    const config = await client.discovery(new URL(server.issuer()), 'web', {}, client.ClientSecretBasic(WEB_SECRET), { execute: [client.allowInsecureRequests], [client.customFetch]: contract.fetch });
    const keys = await dpopKeys();
    const dpop = client.getDPoPHandle(config, keys);
    const { verifier, state, callback } = await parSignIn(config, { scope: 'openid orders:read orders:write', resource: ORDERS, dpop_jkt: keys.jkt });
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, idTokenExpected: true }, undefined, { DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).payload).toMatchObject({ aud: ORDERS, scope: 'orders:read orders:write', cnf: { jkt: keys.jkt } });

    const refused = await client
      .buildAuthorizationUrlWithPAR(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()), code_challenge_method: 'S256', resource: 'https://unknown.example.com/' })
      .catch((e: { error?: string; status?: number }) => e);
    expect(refused).toMatchObject({ error: 'invalid_target', status: 400 });
  });
});

describe('wire checks', () => {
  it('answers invalid_target with status 400 and no-store at the token endpoint', async () => {
    const { status, body, headers } = await jsonOf(
      await rp.post('/token', { grant_type: 'client_credentials', resource: 'urn:x:none' }, { authorization: `Basic ${Buffer.from(`service:${SERVICE_SECRET}`).toString('base64')}` }),
    );
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_target');
    expect(headers.get('cache-control')).toBe('no-store');
  });
});
