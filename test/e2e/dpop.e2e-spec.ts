/**
 * DPoP (RFC 9449): proofs at the token endpoint, DPoP-bound access tokens at introspection,
 * userinfo and the admin API, server nonces, through oauth4webapi and openid-client, and the
 * proofs a server must refuse.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, SignJWT, type JWK } from 'jose';
import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { ADMIN_SECRET, adminCall, adminClients } from '../support/admin.js';
import { ContractFetch } from '../support/contract-fetch.js';
import { decodeJwt, jsonOf, oauthError, RelyingParty } from '../support/rp.js';
import { ALICE_PASSWORD, REDIRECT, SERVICE_SECRET, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let rp: RelyingParty;
let noncy: RelyingParty;
const contract = new ContractFetch();

const yaml = `
tenants:
  - id: acme
    clients:${adminClients()}
      - client_id: service
        client_secret: "${SERVICE_SECRET}"
        grant_types: [client_credentials]
        scope: "orders:read"
      - client_id: bound
        client_secret: "${SERVICE_SECRET}"
        grant_types: [client_credentials]
        scope: "orders:read"
        dpop_bound_access_tokens: true
      - client_id: spa
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code, refresh_token]
        scope: "openid profile offline_access"
        token_endpoint_auth_method: none
        first_party: true
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
        name: Alice Liddell
  - id: noncy
    dpop_nonce_required: true
    clients:
      - client_id: service
        client_secret: "${SERVICE_SECRET}"
        grant_types: [client_credentials]
        scope: "orders:read"
`;

beforeAll(async () => {
  server = await startTestServer(yaml);
  rp = await RelyingParty.discover(server, contract);
  noncy = await RelyingParty.discover(server, contract, 'noncy');
  for (const id of ['service', 'bound']) rp.auths.set(id, () => oauth.ClientSecretBasic(SERVICE_SECRET));
  rp.auths.set('admin', () => oauth.ClientSecretBasic(ADMIN_SECRET));
  noncy.auths.set('service', () => oauth.ClientSecretBasic(SERVICE_SECRET));
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  expect(contract.violations.splice(0)).toEqual([]);
});

async function dpopKeys(alg: 'ES256' | 'RS256' | 'EdDSA' = 'ES256') {
  const pair = await generateKeyPair(alg, { extractable: true });
  return { ...pair, jkt: await calculateJwkThumbprint(await exportJWK(pair.publicKey)) };
}

/** A client_credentials token of `clientId` bound to `keys` through oauth4webapi's DPoP. */
async function boundToken(clientId: string, keys: { privateKey: CryptoKey; publicKey: CryptoKey }, party = rp, scope = 'orders:read') {
  const dpop = oauth.DPoP(party.client(clientId), keys);
  const request = () => oauth.clientCredentialsGrantRequest(party.as, party.client(clientId), party.auth(clientId), { scope }, { ...party.options, DPoP: dpop });
  return { dpop, tokens: await oauth.processClientCredentialsResponse(party.as, party.client(clientId), await request()) };
}

/** A refresh of spa's token, with a DPoP handle or none. */
async function refreshWith(refreshToken: string, handle?: oauth.DPoPHandle) {
  const res = await oauth.refreshTokenGrantRequest(rp.as, rp.client('spa'), oauth.None(), refreshToken, { ...rp.options, ...(handle ? { DPoP: handle } : {}) });
  return oauth.processRefreshTokenResponse(rp.as, rp.client('spa'), res);
}

/** A proof made by hand, for what a library would refuse to send. */
async function proof(keys: { privateKey: CryptoKey; publicKey: CryptoKey }, o: { htm?: string; htu?: string; iat?: number; claims?: Record<string, unknown>; jwk?: JWK; alg?: string; typ?: string } = {}) {
  const now = Math.floor(server.clock.now().getTime() / 1000);
  const jwk = o.jwk ?? (await exportJWK(keys.publicKey));
  return new SignJWT({ htm: o.htm ?? 'POST', htu: o.htu ?? `${server.issuer()}/token`, iat: o.iat ?? now, jti: crypto.randomUUID(), ...o.claims })
    .setProtectedHeader({ alg: o.alg ?? 'ES256', typ: o.typ ?? 'dpop+jwt', jwk })
    .sign(keys.privateKey);
}

const ccWithProof = (dpopProof: string, clientId = 'service') =>
  rp.post('/token', { grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`${clientId}:${SERVICE_SECRET}`).toString('base64')}`, dpop: dpopProof });

describe('DPoP at the token endpoint', () => {
  it('is announced in discovery with its algs', () => {
    expect(rp.as.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'PS256', 'RS256', 'EdDSA']));
    expect(rp.as.dpop_signing_alg_values_supported).not.toContain('none');
  });

  it('binds a client_credentials token to the proof key through oauth4webapi: token_type DPoP, cnf.jkt in the JWT and in introspection', async () => {
    const keys = await dpopKeys();
    const { tokens } = await boundToken('service', keys);
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).payload.cnf).toEqual({ jkt: keys.jkt });
    expect(await rp.introspect(tokens.access_token, 'service')).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: keys.jkt } });
  });

  it('binds a token through openid-client, with an RSA and an Ed25519 key too', async () => {
    const config = await client.discovery(new URL(server.issuer()), 'service', {}, client.ClientSecretBasic(SERVICE_SECRET), { execute: [client.allowInsecureRequests], [client.customFetch]: contract.fetch });
    for (const alg of ['ES256', 'RS256', 'EdDSA'] as const) {
      const keys = await dpopKeys(alg);
      const tokens = await client.clientCredentialsGrant(config, { scope: 'orders:read' }, { DPoP: client.getDPoPHandle(config, keys) }).catch((e: { error?: string; error_description?: string }) => { throw new Error(`${alg}: ${e.error} ${e.error_description}`); });
      expect({ alg, type: tokens.token_type.toLowerCase(), cnf: decodeJwt(tokens.access_token).payload.cnf }).toEqual({ alg, type: 'dpop', cnf: { jkt: keys.jkt } });
    }
  });

  it('issues a Bearer token without a proof, except to a client registered with dpop_bound_access_tokens', async () => {
    const bearer = await rp.clientCredentials('service');
    expect(bearer.token_type).toBe('bearer');
    expect(decodeJwt(bearer.access_token).payload).not.toHaveProperty('cnf');
    const { status, body } = await jsonOf(await rp.post('/token', { grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`bound:${SERVICE_SECRET}`).toString('base64')}` }));
    expect({ status, error: body.error }).toEqual({ status: 400, error: 'invalid_dpop_proof' });
    const keys = await dpopKeys();
    expect((await boundToken('bound', keys)).tokens.token_type).toBe('dpop');
  });

  it('binds the access tokens of the code flow and of a refresh to the proof key', async () => {
    const keys = await dpopKeys();
    const dpop = oauth.DPoP(rp.client('spa'), keys);
    const s = await rp.signIn(rp.browser(), { clientId: 'spa', scope: 'openid offline_access' });
    const code = rp.codeParams(s, 'spa');
    const redeem = () => oauth.authorizationCodeGrantRequest(rp.as, rp.client('spa'), oauth.None(), code, s.redirectUri, s.verifier, { ...rp.options, DPoP: dpop });
    const tokens = await oauth.processAuthorizationCodeResponse(rp.as, rp.client('spa'), await redeem(), { expectedNonce: s.nonce, requireIdToken: true });
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).payload.cnf).toEqual({ jkt: keys.jkt });
    const refreshed = await oauth.processRefreshTokenResponse(rp.as, rp.client('spa'), await oauth.refreshTokenGrantRequest(rp.as, rp.client('spa'), oauth.None(), tokens.refresh_token!, { ...rp.options, DPoP: dpop }));
    expect(decodeJwt(refreshed.access_token).payload.cnf).toEqual({ jkt: keys.jkt });
    const info = await oauth.processUserInfoResponse(rp.as, rp.client('spa'), decodeJwt(tokens.id_token!).payload.sub as string, await oauth.userInfoRequest(rp.as, rp.client('spa'), refreshed.access_token, { ...rp.options, DPoP: dpop }));
    expect(info).toMatchObject({ sub: decodeJwt(tokens.id_token!).payload.sub });
  });

  it("binds a public client's refresh token to its key: a refresh with another key, or none, is refused and ends nothing", async () => {
    const keys = await dpopKeys();
    const dpop = oauth.DPoP(rp.client('spa'), keys);
    const s = await rp.signIn(rp.browser(), { clientId: 'spa', scope: 'openid offline_access' });
    const res = await oauth.authorizationCodeGrantRequest(rp.as, rp.client('spa'), oauth.None(), rp.codeParams(s, 'spa'), s.redirectUri, s.verifier, { ...rp.options, DPoP: dpop });
    const tokens = await oauth.processAuthorizationCodeResponse(rp.as, rp.client('spa'), res, { expectedNonce: s.nonce });
    const thief = oauth.DPoP(rp.client('spa'), await dpopKeys());
    expect(await oauthError(refreshWith(tokens.refresh_token!, thief))).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(await oauthError(refreshWith(tokens.refresh_token!))).toMatchObject({ status: 400, error: 'invalid_grant' });
    // The holder of the key still refreshes: the refusals ended nothing.
    const refreshed = await refreshWith(tokens.refresh_token!, dpop);
    expect(decodeJwt(refreshed.access_token).payload.cnf).toEqual({ jkt: keys.jkt });
  });

  it('refuses a replayed proof, on every endpoint it could be sent to again', async () => {
    const keys = await dpopKeys();
    const once = await proof(keys);
    expect((await ccWithProof(once)).status).toBe(200);
    const { status, body } = await jsonOf(await ccWithProof(once));
    expect({ status, error: body.error }).toEqual({ status: 400, error: 'invalid_dpop_proof' });
  });

  it.each<[string, (keys: Awaited<ReturnType<typeof dpopKeys>>) => Promise<string>]>([
    ['a wrong htm', (k) => proof(k, { htm: 'GET' })],
    ['a wrong htu', (k) => proof(k, { htu: `${server.issuer()}/introspect` })],
    ['the htu of another tenant', (k) => proof(k, { htu: `${server.issuer('noncy')}/token` })],
    ['a stale iat', (k) => proof(k, { iat: Math.floor(server.clock.now().getTime() / 1000) - 300 })],
    ['an iat far ahead', (k) => proof(k, { iat: Math.floor(server.clock.now().getTime() / 1000) + 300 })],
    ['a wrong typ', (k) => proof(k, { typ: 'JWT' })],
    ['a private key in its jwk', async (k) => proof(k, { jwk: await exportJWK(k.privateKey) })],
    ['a jwk that is not the signing key', async (k) => proof(k, { jwk: await exportJWK((await dpopKeys()).publicKey) })],
    ['a tampered payload', async (k) => { const [h, p, sig] = (await proof(k)).split('.'); const claims = JSON.parse(Buffer.from(p, 'base64url').toString()); return `${h}.${Buffer.from(JSON.stringify({ ...claims, htm: 'POST', jti: 'other' })).toString('base64url')}.${sig}`; }],
    ['alg none', async (k) => { const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url'); return `${enc({ alg: 'none', typ: 'dpop+jwt', jwk: await exportJWK(k.publicKey) })}.${enc({ htm: 'POST', htu: `${server.issuer()}/token`, iat: Math.floor(server.clock.now().getTime() / 1000), jti: crypto.randomUUID() })}.`; }],
    ['not a JWT', async () => 'not-a-proof'],
  ])('refuses a proof with %s with 400 invalid_dpop_proof', async (_, make) => {
    const { status, body, headers } = await jsonOf(await ccWithProof(await make(await dpopKeys())));
    expect({ status, error: body.error }).toEqual({ status: 400, error: 'invalid_dpop_proof' });
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a proof whose iat is stale by the injected clock', async () => {
    const keys = await dpopKeys();
    const early = await proof(keys);
    server.clock.advance(120_000);
    try {
      expect((await jsonOf(await ccWithProof(early))).body.error).toBe('invalid_dpop_proof');
    } finally {
      server.clock.advance(-120_000);
    }
  });
});

describe('DPoP-bound tokens at resources', () => {
  let keys: Awaited<ReturnType<typeof dpopKeys>>;
  let userToken: string;
  let dpop: oauth.DPoPHandle;

  beforeAll(async () => {
    keys = await dpopKeys();
    dpop = oauth.DPoP(rp.client('spa'), keys);
    const s = await rp.signIn(rp.browser(), { clientId: 'spa', scope: 'openid profile' });
    const res = await oauth.authorizationCodeGrantRequest(rp.as, rp.client('spa'), oauth.None(), rp.codeParams(s, 'spa'), s.redirectUri, s.verifier, { ...rp.options, DPoP: dpop });
    userToken = (await oauth.processAuthorizationCodeResponse(rp.as, rp.client('spa'), res, { expectedNonce: s.nonce })).access_token;
  });

  const userinfo = (authorization: string, dpopProof?: string) => contract.fetch(`${server.issuer()}/userinfo`, { headers: { authorization, ...(dpopProof ? { dpop: dpopProof } : {}) } });
  const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

  it('answers userinfo for a bound token with the DPoP scheme and a proof naming it by ath', async () => {
    const res = await userinfo(`DPoP ${userToken}`, await proof(keys, { htm: 'GET', htu: `${server.issuer()}/userinfo`, claims: { ath: ath(userToken) } }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { name: string }).name).toBe('Alice Liddell');
  });

  it.each<[string, () => Promise<[string, string | undefined]>]>([
    ['sent as Bearer', async () => [`Bearer ${userToken}`, undefined]],
    ['sent as Bearer with a proof', async () => [`Bearer ${userToken}`, await proof(keys, { htm: 'GET', htu: `${server.issuer()}/userinfo`, claims: { ath: ath(userToken) } })]],
    ['without a proof', async () => [`DPoP ${userToken}`, undefined]],
    ['with a proof without ath', async () => [`DPoP ${userToken}`, await proof(keys, { htm: 'GET', htu: `${server.issuer()}/userinfo` })]],
    ['with a proof of another token', async () => [`DPoP ${userToken}`, await proof(keys, { htm: 'GET', htu: `${server.issuer()}/userinfo`, claims: { ath: ath('other') } })]],
    ['with a proof by another key', async () => [`DPoP ${userToken}`, await proof(await dpopKeys(), { htm: 'GET', htu: `${server.issuer()}/userinfo`, claims: { ath: ath(userToken) } })]],
    ['with a proof for the token endpoint', async () => [`DPoP ${userToken}`, await proof(keys, { claims: { ath: ath(userToken) } })]],
  ])('refuses a bound token %s with 401 and the DPoP challenge', async (_, make) => {
    const [authorization, dpopProof] = await make();
    const res = await userinfo(authorization, dpopProof);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^DPoP error="(invalid_token|invalid_dpop_proof)".*algs="[^"]*ES256/);
  });

  it('refuses a Bearer token sent with the DPoP scheme', async () => {
    const { tokens } = { tokens: await rp.clientCredentials('service') };
    const res = await userinfo(`DPoP ${tokens.access_token}`, await proof(keys, { htm: 'GET', htu: `${server.issuer()}/userinfo`, claims: { ath: ath(tokens.access_token) } }));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
  });

  it('lets a bound admin token through the admin API only with a proof of its key', async () => {
    const adminKeys = await dpopKeys();
    const { tokens } = await boundToken('admin', adminKeys, rp, 'central:read');
    const url = `${server.issuer()}/configuration/clients`;
    const withProof = await adminCall(server, contract, 'GET', '/acme/configuration/clients', undefined, undefined, {
      authorization: `DPoP ${tokens.access_token}`,
      dpop: await proof(adminKeys, { htm: 'GET', htu: url, claims: { ath: ath(tokens.access_token) } }),
    });
    expect(withProof.status).toBe(200);
    const asBearer = await adminCall(server, contract, 'GET', '/acme/configuration/clients', tokens.access_token);
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
    const otherKey = await adminCall(server, contract, 'GET', '/acme/configuration/clients', undefined, undefined, {
      authorization: `DPoP ${tokens.access_token}`,
      dpop: await proof(await dpopKeys(), { htm: 'GET', htu: url, claims: { ath: ath(tokens.access_token) } }),
    });
    expect(otherKey.status).toBe(401);
  });
});

describe('DPoP server nonces', () => {
  it('asks for a nonce with use_dpop_nonce and DPoP-Nonce, which oauth4webapi then sends', async () => {
    const keys = await dpopKeys();
    const dpop = oauth.DPoP(noncy.client('service'), keys);
    const request = () => oauth.clientCredentialsGrantRequest(noncy.as, noncy.client('service'), noncy.auth('service'), {}, { ...noncy.options, DPoP: dpop });
    const first = await request();
    expect(first.headers.get('dpop-nonce')).toMatch(/^\d+\.[A-Za-z0-9_-]+$/);
    const e = await oauthError(oauth.processClientCredentialsResponse(noncy.as, noncy.client('service'), first));
    expect(e).toMatchObject({ status: 400, error: 'use_dpop_nonce' });
    const tokens = await oauth.processClientCredentialsResponse(noncy.as, noncy.client('service'), await request());
    expect(decodeJwt(tokens.access_token).payload.cnf).toEqual({ jkt: keys.jkt });
  });

  it("refuses a forged nonce, another tenant's, and one older than two periods", async () => {
    const keys = await dpopKeys();
    const first = await noncy.post('/token', { grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`service:${SERVICE_SECRET}`).toString('base64')}`, dpop: await proof(keys, { htu: `${server.issuer('noncy')}/token` }) });
    const nonce = first.headers.get('dpop-nonce')!;
    const attempt = async (n: string) =>
      (await jsonOf(await noncy.post('/token', { grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`service:${SERVICE_SECRET}`).toString('base64')}`, dpop: await proof(keys, { htu: `${server.issuer('noncy')}/token`, claims: { nonce: n } }) }))).body.error;
    expect(await attempt(`${nonce.split('.')[0]}.forged`)).toBe('use_dpop_nonce');
    expect(await attempt(nonce)).toBeUndefined();
    server.clock.advance(700_000);
    try {
      expect(await attempt(nonce)).toBe('use_dpop_nonce');
    } finally {
      server.clock.advance(-700_000);
    }
  });
});
