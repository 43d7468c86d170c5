/**
 * client_secret_jwt (RFC 7523 §2.2, OpenID Connect Core §9) at the token, PAR, introspection and
 * revocation endpoints, through oauth4webapi and openid-client; its secret kept sealed across
 * rotations; refused by a fapi2-security tenant.
 */
import { SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { adminCall, adminClients, adminToken } from '../support/admin.js';
import { tokenHistory } from '../support/audit.js';
import { ContractFetch } from '../support/contract-fetch.js';
import { decodeJwt, jsonOf, RelyingParty } from '../support/rp.js';
import { REDIRECT, startTestServer, type TestServer } from '../support/server.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** 64 characters: long enough for HS512 (RFC 7518 §3.2). */
const HS_SECRET = 'hs-secret-0123456789-0123456789-0123456789-0123456789-0123456789';
const PINNED_SECRET = 'pinned-secret-0123456789-0123456789-0123456789';

let server: TestServer;
let rp: RelyingParty;
const contract = new ContractFetch();

beforeAll(async () => {
  const yaml = `
tenants:
  - id: acme
    clients:${adminClients()}
      - client_id: hs
        client_secret: "${HS_SECRET}"
        token_endpoint_auth_method: client_secret_jwt
        grant_types: [client_credentials, authorization_code]
        redirect_uris: ["${REDIRECT}"]
        scope: "openid api:read"
      - client_id: pinned
        client_secret: "${PINNED_SECRET}"
        token_endpoint_auth_method: client_secret_jwt
        token_endpoint_auth_signing_alg: HS256
        grant_types: [client_credentials]
        scope: "api:read"
      - client_id: basic
        client_secret: "${HS_SECRET}"
        grant_types: [client_credentials]
        scope: "api:read"
  - id: fapi
    security_profile: fapi2-security
    signing_alg: ES256
  - id: ops
    operator: true
    clients:${adminClients()}
`;
  server = await startTestServer(yaml);
  rp = await RelyingParty.discover(server, contract);
  rp.auths.set('hs', () => oauth.ClientSecretJwt(HS_SECRET));
  rp.auths.set('pinned', () => oauth.ClientSecretJwt(PINNED_SECRET));
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  expect(contract.violations.splice(0)).toEqual([]);
});

/** An assertion of `clientId` under `secret` (by default valid), with claims and alg overridden. */
async function assertion(clientId: string, secret: string, o: { claims?: Record<string, unknown>; alg?: string } = {}): Promise<string> {
  const now = server.clock.seconds();
  const claims = { iss: clientId, sub: clientId, aud: server.issuer(), jti: crypto.randomUUID(), iat: now, exp: now + 60, ...o.claims };
  return new SignJWT(claims).setProtectedHeader({ alg: o.alg ?? 'HS256' }).sign(Buffer.from(secret));
}

const tokenWith = async (clientAssertion: string, tenant?: string) =>
  jsonOf(await fetch(`${server.issuer(tenant)}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: clientAssertion }) }));

describe('client_secret_jwt', () => {
  it('is announced with its HMAC algs beside private_key_jwt at a baseline tenant, never at a fapi2-security one', async () => {
    for (const name of ['token', 'introspection', 'revocation'] as const) {
      expect(rp.as[`${name}_endpoint_auth_methods_supported`]).toContain('client_secret_jwt');
      expect(rp.as[`${name}_endpoint_auth_signing_alg_values_supported`]).toEqual(expect.arrayContaining(['HS256', 'HS384', 'HS512', 'ES256']));
    }
    const fapi = (await (await fetch(`${server.issuer('fapi')}/.well-known/openid-configuration`)).json()) as Record<string, string[]>;
    expect(fapi.token_endpoint_auth_methods_supported).not.toContain('client_secret_jwt');
    expect(fapi.token_endpoint_auth_signing_alg_values_supported).not.toContain('HS256');
  });

  it('authenticates a client at the token, introspection and revocation endpoints through oauth4webapi', async () => {
    const tokens = await rp.clientCredentials('hs', 'api:read');
    expect(decodeJwt(tokens.access_token).payload).toMatchObject({ client_id: 'hs', scope: 'api:read' });
    expect(await rp.introspect(tokens.access_token, 'hs')).toMatchObject({ active: true, client_id: 'hs' });
    await rp.revoke(tokens.access_token, 'hs');
    expect(await rp.active(tokens.access_token, 'hs')).toBe(false);
  });

  it('authenticates a client through openid-client, at the token endpoint and at /par', async () => {
    const config = await client.discovery(new URL(server.issuer()), 'hs', {}, client.ClientSecretJwt(HS_SECRET), { execute: [client.allowInsecureRequests], [client.customFetch]: contract.fetch });
    expect((await client.clientCredentialsGrant(config, { scope: 'api:read' })).access_token).toBeTruthy();
    const url = await client.buildAuthorizationUrlWithPAR(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
    expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
  });

  it('takes HS384 and HS512 from a client that pinned no alg, and only the pinned alg from one that did', async () => {
    expect((await tokenWith(await assertion('hs', HS_SECRET, { alg: 'HS512' }))).status).toBe(200);
    expect((await tokenWith(await assertion('hs', HS_SECRET, { alg: 'HS384' }))).status).toBe(200);
    expect((await tokenWith(await assertion('pinned', PINNED_SECRET))).status).toBe(200);
    expect(await tokenWith(await assertion('pinned', PINNED_SECRET, { alg: 'HS384' }))).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('refuses a replayed assertion and records it', async () => {
    const once = await assertion('hs', HS_SECRET);
    expect((await tokenWith(once)).status).toBe(200);
    expect(await tokenWith(once)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const failures = (await tokenHistory(server, { clientId: 'hs' })).filter((h) => h.type === 'ClientAuthenticationFailed');
    expect(failures.map((h) => [h.data.method, h.data.reason])).toContainEqual(['client_secret_jwt', 'replayed_assertion']);
  });

  it.each<[string, () => Promise<string>]>([
    ['a wrong secret', () => assertion('hs', `${HS_SECRET}x`)],
    ['a wrong audience', () => assertion('hs', HS_SECRET, { claims: { aud: 'https://elsewhere.example' } })],
    ['another tenant as audience', () => assertion('hs', HS_SECRET, { claims: { aud: server.issuer('fapi') } })],
    ['no exp', () => assertion('hs', HS_SECRET, { claims: { exp: undefined } })],
    ['an exp an hour ahead', () => assertion('hs', HS_SECRET, { claims: { exp: server.clock.seconds() + 3600 } })],
    ['no jti', () => assertion('hs', HS_SECRET, { claims: { jti: undefined } })],
    ['the secret of a client_secret_basic client', () => assertion('basic', HS_SECRET)],
    ['alg none', async () => { const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url'); return `${enc({ alg: 'none' })}.${enc({ iss: 'hs', sub: 'hs', aud: server.issuer(), jti: crypto.randomUUID(), exp: server.clock.seconds() + 60 })}.`; }],
  ])('refuses an assertion with %s with 401 invalid_client', async (_, make) => {
    const { status, body } = await tokenWith(await make());
    expect({ status, error: body.error }).toEqual({ status: 401, error: 'invalid_client' });
  });

  it('refuses the client\'s secret sent as client_secret_basic', async () => {
    const res = await jsonOf(await rp.post('/token', { grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`hs:${HS_SECRET}`).toString('base64')}` }));
    expect(res.status).toBe(401);
  });
});

describe('registering and rotating client_secret_jwt clients', () => {
  it('generates a secret for a new client, keeps it only sealed, and moves to a rotated one with the previous one valid during its grace', async () => {
    const admin = await adminToken(server, 'acme');
    const created = await adminCall(server, contract, 'POST', '/acme/configuration/clients', admin, { client_id: 'hs-new', token_endpoint_auth_method: 'client_secret_jwt', grant_types: ['client_credentials'], scope: 'api:read' });
    expect(created.status).toBe(201);
    const first = created.body.client_secret as string;
    expect(Buffer.byteLength(first)).toBeGreaterThanOrEqual(64);
    expect(created.body).toMatchObject({ token_endpoint_auth_method: 'client_secret_jwt' });
    expect((await tokenWith(await assertion('hs-new', first, { alg: 'HS512' }))).status).toBe(200);

    const rotated = await adminCall(server, contract, 'POST', '/acme/configuration/clients/hs-new/secret', admin, { grace_period: 60 });
    expect(rotated.status).toBe(200);
    const second = rotated.body.client_secret as string;
    expect((await tokenWith(await assertion('hs-new', second))).status).toBe(200);
    expect((await tokenWith(await assertion('hs-new', first))).status).toBe(200);
    server.clock.advance(61_000);
    try {
      expect((await tokenWith(await assertion('hs-new', first))).status).toBe(401);
      expect((await tokenWith(await assertion('hs-new', second))).status).toBe(200);
    } finally {
      server.clock.advance(-61_000);
    }
    // Neither secret is in the client's events, as the audit routes show them or otherwise.
    const events = await adminCall(server, contract, 'GET', '/acme/configuration/audit/events?limit=1000', admin);
    expect(events.status).toBe(200);
    expect(JSON.stringify(events.body)).toContain('ClientSecretRotated');
    expect(JSON.stringify(events.body)).toMatch(/"sealed":"\[withheld\]"/);
    expect(JSON.stringify(events.body)).not.toContain(first);
    expect(JSON.stringify(events.body)).not.toContain(second);
  });

  it('refuses the method at a fapi2-security tenant, and an asymmetric alg pinned for it', async () => {
    const fapi = await adminToken(server, 'ops');
    const refused = await adminCall(server, contract, 'POST', '/fapi/configuration/clients', fapi, { client_id: 'hs-fapi', token_endpoint_auth_method: 'client_secret_jwt', grant_types: ['client_credentials'], scope: 'api:read' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/client_secret_jwt is not allowed by the security profile fapi2-security/);
    const admin = await adminToken(server, 'acme');
    const es = await adminCall(server, contract, 'POST', '/acme/configuration/clients', admin, { client_id: 'hs-es', token_endpoint_auth_method: 'client_secret_jwt', token_endpoint_auth_signing_alg: 'ES256', grant_types: ['client_credentials'], scope: 'api:read' });
    expect(es.status).toBe(400);
  });
});
