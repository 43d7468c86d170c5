/**
 * private_key_jwt (RFC 7523, OpenID Connect Core §9) at the token, introspection and revocation
 * endpoints, through oauth4webapi and openid-client, and the assertions a server must refuse.
 */
import { cpSync, rmSync } from 'node:fs';
import { jest } from '@jest/globals';
import { exportJWK, generateKeyPair, type CryptoKey, SignJWT, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { adminCall, adminClients, adminToken } from '../support/admin.js';
import { tokenHistory } from '../support/audit.js';
import { ContractFetch } from '../support/contract-fetch.js';
import { decodeJwt, jsonOf, oauthError, RelyingParty } from '../support/rp.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { streams } from '../../src/domain/shared/stream-names.js';
import { EVENT_STORE, type EventStore } from '../../src/infrastructure/event-store/event-store.port.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

let server: TestServer;
let rp: RelyingParty;
const contract = new ContractFetch();
let ec: { privateKey: CryptoKey; publicJwk: JWK };
let rsa: { privateKey: CryptoKey; publicJwk: JWK };
let otherEc: { privateKey: CryptoKey; publicJwk: JWK };

async function keyPair(alg: 'ES256' | 'RS256', kid: string) {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid } };
}

/** The tenant and its clients (the keys are made in beforeAll). */
const bootstrap = () => `
tenants:
  - id: acme
    clients:${adminClients()}
      - client_id: signer
        token_endpoint_auth_method: private_key_jwt
        token_endpoint_auth_signing_alg: ES256
        jwks: ${JSON.stringify({ keys: [ec.publicJwk, rsa.publicJwk] })}
        grant_types: [client_credentials]
        scope: "api:read"
      - client_id: other-signer
        token_endpoint_auth_method: private_key_jwt
        jwks: ${JSON.stringify({ keys: [otherEc.publicJwk] })}
        grant_types: [client_credentials]
        scope: "api:read"
`;

beforeAll(async () => {
  ec = await keyPair('ES256', 'ec-1');
  rsa = await keyPair('RS256', 'rsa-1');
  otherEc = await keyPair('ES256', 'other-1');
  server = await startTestServer(bootstrap());
  rp = await RelyingParty.discover(server, contract);
  rp.auths.set('signer', () => oauth.PrivateKeyJwt({ key: ec.privateKey, kid: 'ec-1' }));
  rp.auths.set('other-signer', () => oauth.PrivateKeyJwt({ key: otherEc.privateKey, kid: 'other-1' }));
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  expect(contract.violations.splice(0)).toEqual([]);
});

/** An assertion for `signer` (by default valid), with claims and header overridden. */
async function assertion(o: { claims?: Record<string, unknown>; key?: CryptoKey; alg?: string; kid?: string } = {}): Promise<string> {
  const now = Math.floor(server.clock.now().getTime() / 1000);
  const claims = { iss: 'signer', sub: 'signer', aud: server.issuer(), jti: crypto.randomUUID(), iat: now, exp: now + 60, ...o.claims };
  return new SignJWT(claims).setProtectedHeader({ alg: o.alg ?? 'ES256', kid: o.kid ?? 'ec-1' }).sign(o.key ?? ec.privateKey);
}

const tokenWith = (clientAssertion: string, extra: Record<string, string> = {}) =>
  rp.post('/token', { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: clientAssertion, ...extra });

describe('private_key_jwt', () => {
  it('is announced in discovery for the token, introspection and revocation endpoints, with its algs', () => {
    for (const name of ['token', 'introspection', 'revocation'] as const) {
      expect(rp.as[`${name}_endpoint_auth_methods_supported`]).toContain('private_key_jwt');
      expect(rp.as[`${name}_endpoint_auth_signing_alg_values_supported`]).toEqual(expect.arrayContaining(['ES256', 'PS256', 'RS256', 'EdDSA']));
      expect(rp.as[`${name}_endpoint_auth_signing_alg_values_supported`]).not.toContain('none');
    }
  });

  it('authenticates a client at the token, introspection and revocation endpoints through oauth4webapi', async () => {
    const tokens = await rp.clientCredentials('signer', 'api:read');
    expect(decodeJwt(tokens.access_token).payload).toMatchObject({ client_id: 'signer', sub: 'signer', scope: 'api:read' });
    expect(await rp.introspect(tokens.access_token, 'signer')).toMatchObject({ active: true, client_id: 'signer' });
    await rp.revoke(tokens.access_token, 'signer');
    expect(await rp.active(tokens.access_token, 'other-signer')).toBe(false);
  });

  it('authenticates a client through openid-client', async () => {
    const config = await client.discovery(new URL(server.issuer()), 'signer', {}, client.PrivateKeyJwt(ec.privateKey, { kid: 'ec-1' } as never), { execute: [client.allowInsecureRequests], [client.customFetch]: contract.fetch });
    const tokens = await client.clientCredentialsGrant(config, { scope: 'api:read' });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(decodeJwt(tokens.access_token).payload.client_id).toBe('signer');
  });

  it('accepts the token endpoint URL and the endpoint the assertion is sent to as its audience', async () => {
    for (const [path, aud] of [['/token', `${server.issuer()}/token`], ['/introspect', `${server.issuer()}/introspect`]] as const) {
      const res = await rp.post(path, { ...(path === '/token' ? { grant_type: 'client_credentials' } : { token: 'x' }), client_assertion_type: JWT_BEARER, client_assertion: await assertion({ claims: { aud } }) });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
  });

  it('refuses a replayed assertion (its jti is single use), and records the replay on the client\'s history', async () => {
    const once = await assertion();
    expect((await tokenWith(once)).status).toBe(200);
    const { status, body, headers } = await jsonOf(await tokenWith(once));
    expect({ status, error: body.error }).toEqual({ status: 401, error: 'invalid_client' });
    expect(headers.get('www-authenticate')).toBeTruthy();
    // Also at another endpoint: the jti is used up, whatever endpoint saw it first.
    expect((await rp.post('/introspect', { token: 'x', client_assertion_type: JWT_BEARER, client_assertion: once })).status).toBe(401);
    const failures = (await tokenHistory(server, { clientId: 'signer' })).filter((h) => h.type === 'ClientAuthenticationFailed');
    expect(failures.map((h) => h.data.reason)).toContain('replayed_assertion');
    expect(JSON.stringify(failures)).not.toContain(once.split('.')[2]);
  });

  it('uses the jti up in the same write to the log as the token it issues', async () => {
    const events = server.app.get<EventStore>(EVENT_STORE);
    const together = jest.spyOn(events, 'appendTogether');
    const alone = jest.spyOn(events, 'append');
    try {
      expect((await tokenWith(await assertion())).status).toBe(200);
      expect(alone).not.toHaveBeenCalled();
      expect(together).toHaveBeenCalledTimes(1);
      const [appends] = together.mock.calls[0];
      expect(appends.map((a) => [a.streamId.split('.')[0], a.events.map((e) => e.type)])).toEqual([
        ['jti-acme', ['JtiUsed']],
        ['clienttokens-acme', ['AccessTokenIssued']],
      ]);
    } finally {
      together.mockRestore();
      alone.mockRestore();
    }
  });

  it('issues one token for one assertion sent twice at once, and refuses the other', async () => {
    const events = server.app.get<EventStore>(EVENT_STORE);
    const issued = async () => (await events.readStream(streams.clientTokens('acme', 'signer'))).filter((e) => e.type === 'AccessTokenIssued').length;
    const before = await issued();
    const twice = await assertion();
    const statuses = (await Promise.all([tokenWith(twice), tokenWith(twice)])).map((r) => r.status);
    expect(statuses.sort()).toEqual([200, 401]);
    expect((await issued()) - before).toBe(1);
  });

  it('uses the jti up when the request fails after the client authenticated (a scope it may not have): the same assertion is then refused', async () => {
    const once = await assertion();
    const refused = await jsonOf(await tokenWith(once, { scope: 'api:write' }));
    expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 400, error: 'invalid_scope' });
    const again = await jsonOf(await tokenWith(once));
    expect({ status: again.status, error: again.body.error }).toEqual({ status: 401, error: 'invalid_client' });
  });

  it.each<[string, () => Promise<string>]>([
    ['a tampered payload', async () => { const [h, , s] = (await assertion()).split('.'); return `${h}.${Buffer.from(JSON.stringify({ iss: 'signer', sub: 'signer', aud: server.issuer(), jti: 'x', exp: 4102444800 })).toString('base64url')}.${s}`; }],
    ['a wrong audience', () => assertion({ claims: { aud: 'https://elsewhere.example' } })],
    ['another tenant as audience', () => assertion({ claims: { aud: server.issuer('other') } })],
    ['no exp', () => assertion({ claims: { exp: undefined } })],
    ['an exp an hour ahead', async () => assertion({ claims: { exp: Math.floor(server.clock.now().getTime() / 1000) + 3600 } })],
    ['an expired exp', async () => assertion({ claims: { exp: Math.floor(server.clock.now().getTime() / 1000) - 120 } })],
    ['no jti', () => assertion({ claims: { jti: undefined } })],
    ['iss not the client', () => assertion({ claims: { iss: 'other-signer' } })],
    ['the key of another client', () => assertion({ key: otherEc.privateKey, kid: 'ec-1' })],
    ['an alg other than the registered one (RS256 by its registered RSA key)', () => assertion({ key: rsa.privateKey, alg: 'RS256', kid: 'rsa-1' })],
    ['alg none', async () => { const now = Math.floor(server.clock.now().getTime() / 1000); const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url'); return `${enc({ alg: 'none' })}.${enc({ iss: 'signer', sub: 'signer', aud: server.issuer(), jti: crypto.randomUUID(), exp: now + 60 })}.`; }],
    ['not a JWT', async () => 'not-a-jwt'],
  ])('refuses an assertion with %s with 401 invalid_client', async (_, make) => {
    const { status, body } = await jsonOf(await tokenWith(await make()));
    expect({ status, error: body.error }).toEqual({ status: 401, error: 'invalid_client' });
  });

  it('refuses an assertion that arrives after its exp by the injected clock', async () => {
    const late = await assertion();
    server.clock.advance(5 * 60_000);
    try {
      const { status, body } = await jsonOf(await tokenWith(late));
      expect({ status, error: body.error }).toEqual({ status: 401, error: 'invalid_client' });
    } finally {
      server.clock.advance(-5 * 60_000);
    }
  });

  it('refuses a wrong client_assertion_type, a client_id naming another client, and a secret beside the assertion', async () => {
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ client_assertion_type: 'urn:example:other' }, 401, 'invalid_client'],
      [{ client_id: 'other-signer' }, 401, 'invalid_client'],
      [{ client_secret: 'x'.repeat(40) }, 400, 'invalid_request'],
    ];
    for (const [extra, status, error] of cases) {
      const res = await jsonOf(await tokenWith(await assertion(), extra));
      expect({ extra, status: res.status, error: res.body.error }).toEqual({ extra, status, error });
    }
  });

  it('refuses a private_key_jwt client presenting a secret instead, and a secret client presenting an assertion', async () => {
    const asSecret = await jsonOf(await rp.post('/token', { grant_type: 'client_credentials', client_id: 'signer', client_secret: 'x'.repeat(43) }));
    expect(asSecret.status).toBe(401);
    const now = Math.floor(server.clock.now().getTime() / 1000);
    const forAdmin = await new SignJWT({ iss: 'admin', sub: 'admin', aud: server.issuer(), jti: crypto.randomUUID(), exp: now + 60 }).setProtectedHeader({ alg: 'ES256' }).sign(ec.privateKey);
    expect((await tokenWith(forAdmin)).status).toBe(401);
  });
});

describe('registering private_key_jwt clients', () => {
  it('takes a client with jwks and no secret, and shows its keys back', async () => {
    const token = await adminToken(server, 'acme');
    const created = await adminCall(server, contract, 'POST', '/acme/configuration/clients', token, { client_id: 'pk-new', token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: 'ES256', jwks: { keys: [ec.publicJwk] }, grant_types: ['client_credentials'], scope: 'api:read' });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('client_secret');
    expect(created.body).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: 'ES256', jwks: { keys: [expect.objectContaining({ kty: 'EC', kid: 'ec-1' })] } });
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['private_key_jwt without jwks', { token_endpoint_auth_method: 'private_key_jwt' }, /needs jwks/],
    ['a private key in jwks', { token_endpoint_auth_method: 'private_key_jwt', jwks: 'private' }, /private/],
    ['a symmetric key in jwks', { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, /private or symmetric/],
    ['an alg no key fits', { token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: 'EdDSA', jwks: 'public' }, /fits/],
    ['alg none', { token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: 'none', jwks: 'public' }, /unsupported/],
  ])('refuses %s with a clear error', async (_, fields, message) => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = await exportJWK(privateKey);
    const jwks = fields.jwks === 'private' ? { keys: [privateJwk] } : fields.jwks === 'public' ? { keys: [ec.publicJwk] } : fields.jwks;
    const token = await adminToken(server, 'acme');
    const res = await adminCall(server, contract, 'POST', '/acme/configuration/clients', token, { grant_types: ['client_credentials'], scope: 'api:read', ...fields, ...(jwks ? { jwks } : {}) });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(message);
  });
});

describe('a used assertion after a restart', () => {
  it('is still refused by the server restarted on the same log', async () => {
    const once = await assertion();
    expect((await tokenWith(once)).status).toBe(200);
    const first = server;
    await first.app.close();
    // The same data directory and the same public URL (the assertion's audience), another port.
    server = await startTestServer(bootstrap(), { publicUrl: first.baseUrl, seed: async (dir) => cpSync(first.dataDir, dir, { recursive: true }) });
    rmSync(first.dataDir, { recursive: true, force: true });
    const res = await jsonOf(await contract.fetch(`${server.baseUrl}/acme/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: once }) }));
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 401, error: 'invalid_client' });
    const failures = (await tokenHistory(server, { clientId: 'signer' })).filter((h) => h.type === 'ClientAuthenticationFailed');
    expect(failures.at(-1)?.data.reason).toBe('replayed_assertion');
    // A fresh assertion still gets a token there.
    const fresh = await contract.fetch(`${server.baseUrl}/acme/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: await assertion({ claims: { aud: `${first.baseUrl}/acme` } }) }) });
    expect(fresh.status).toBe(200);
  });
});
