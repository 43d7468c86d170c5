/**
 * jwks_uri (RFC 7591 §2): a client's keys fetched from a JWKS host on loopback (registered by an
 * administrator), for private_key_jwt assertions (RFC 7523) and request objects (RFC 9101):
 * caching, a key rotation picked up on an unknown kid within a cooldown, and the fetches that
 * must fail closed with the endpoint's OAuth error.
 */
import { exportJWK, generateKeyPair, type CryptoKey, type JWK, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { adminCall, adminClients, adminToken } from '../support/admin.js';
import { JwksServer } from '../support/jwks-server.js';
import { ContractFetch } from '../support/contract-fetch.js';
import { jsonOf, RelyingParty } from '../support/rp.js';
import { REDIRECT, startTestServer, type TestServer } from '../support/server.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** The server's REFETCH_COOLDOWN_SECONDS and MIN_CACHE_SECONDS, with a second to spare. */
const COOLDOWN_MS = 31_000;

let server: TestServer;
let rp: RelyingParty;
let host: JwksServer;
const contract = new ContractFetch();
type Pair = { privateKey: CryptoKey; publicJwk: JWK };
let first: Pair;
let second: Pair;

async function keyPair(kid: string): Promise<Pair> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

const keyed = (id: string, path: string, extra = '') => `
      - client_id: ${id}
        token_endpoint_auth_method: private_key_jwt
        jwks_uri: "${host.url(path)}"
        grant_types: [client_credentials, authorization_code]
        redirect_uris: ["${REDIRECT}"]
        scope: "openid api:read"${extra}`;

beforeAll(async () => {
  host = await JwksServer.start();
  [first, second] = await Promise.all([keyPair('k1'), keyPair('k2')]);
  for (const path of ['/signer', '/rotor', '/jar']) host.keys(path, [first.publicJwk], 'max-age=120');
  host.hang('/slow');
  host.raw('/big', JSON.stringify({ keys: Array(200).fill(first.publicJwk) }));
  host.raw('/garbage', 'not json at all');
  host.redirect('/moved', host.url('/signer'));
  const yaml = `
tenants:
  - id: acme
    clients:${adminClients()}${keyed('signer', '/signer')}${keyed('rotor', '/rotor')}${keyed('jar', '/jar')}${keyed('slow', '/slow')}${keyed('big', '/big')}${keyed('garbage', '/garbage')}${keyed('moved', '/moved')}
      - client_id: down
        token_endpoint_auth_method: private_key_jwt
        jwks_uri: "http://127.0.0.1:1/jwks"
        grant_types: [client_credentials]
        scope: "api:read"
`;
  server = await startTestServer(yaml, { env: { JWKS_URI_TIMEOUT_MS: '1500', JWKS_URI_MAX_BYTES: '8192' } });
  rp = await RelyingParty.discover(server, contract);
  rp.auths.set('signer', () => oauth.PrivateKeyJwt({ key: first.privateKey, kid: 'k1' }));
});
afterAll(async () => {
  await server?.close();
  await host?.close();
});
afterEach(() => {
  server.clock.release();
  expect(contract.violations.splice(0)).toEqual([]);
});

async function assertion(clientId: string, key: Pair): Promise<string> {
  const now = server.clock.seconds();
  return new SignJWT({ iss: clientId, sub: clientId, aud: server.issuer(), jti: crypto.randomUUID(), iat: now, exp: now + 60 }).setProtectedHeader({ alg: 'ES256', kid: key.publicJwk.kid as string }).sign(key.privateKey);
}

const token = async (clientId: string, key: Pair = first) =>
  jsonOf(await rp.post('/token', { grant_type: 'client_credentials', scope: 'api:read', client_assertion_type: JWT_BEARER, client_assertion: await assertion(clientId, key) }));

describe('jwks_uri', () => {
  it('authenticates a private_key_jwt client by the keys at its jwks_uri, through oauth4webapi and openid-client, fetching them once', async () => {
    const before = host.count('/signer');
    const tokens = await rp.clientCredentials('signer', 'api:read');
    expect(tokens.access_token).toBeTruthy();
    const config = await client.discovery(new URL(server.issuer()), 'signer', {}, client.PrivateKeyJwt(first.privateKey, { kid: 'k1' } as never), { execute: [client.allowInsecureRequests], [client.customFetch]: contract.fetch });
    expect((await client.clientCredentialsGrant(config, { scope: 'api:read' })).access_token).toBeTruthy();
    expect(host.count('/signer') - before).toBe(1);
  });

  it('fetches again once the document\'s max-age has passed by the injected clock', async () => {
    expect((await token('signer')).status).toBe(200);
    const before = host.count('/signer');
    server.clock.freeze();
    server.clock.advance(121_000);
    expect((await token('signer')).status).toBe(200);
    expect((await token('signer')).status).toBe(200);
    expect(host.count('/signer') - before).toBe(1);
  });

  it('picks up a rotated key on its unknown kid, fetching at most once per cooldown', async () => {
    server.clock.freeze();
    expect((await token('rotor', first)).status).toBe(200);
    const fetched = host.count('/rotor');
    host.keys('/rotor', [second.publicJwk], 'max-age=3600');
    // Just fetched: an unknown kid does not fetch again yet, however often it is sent.
    for (let i = 0; i < 3; i++) expect(await token('rotor', second)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(host.count('/rotor')).toBe(fetched);
    server.clock.advance(COOLDOWN_MS);
    expect((await token('rotor', second)).status).toBe(200);
    expect(host.count('/rotor')).toBe(fetched + 1);
    // The withdrawn key no longer verifies, and does not make the server fetch again within the cooldown.
    expect(await token('rotor', first)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(host.count('/rotor')).toBe(fetched + 1);
  });

  it.each([
    ['does not answer in time', 'slow', /in time/],
    ['sends a document over the size cap', 'big', /too large/],
    ['sends no JSON', 'garbage', /JSON/],
    ['redirects', 'moved', /302/],
    ['cannot be reached', 'down', /could not be fetched/],
  ])('refuses an assertion with 401 invalid_client when the jwks_uri %s', async (_, clientId, why) => {
    const { status, body } = await token(clientId);
    expect({ status, error: body.error }).toEqual({ status: 401, error: 'invalid_client' });
    expect(body.error_description).toMatch(why);
  });

  it('does not fetch a failing jwks_uri again within the cooldown', async () => {
    server.clock.freeze();
    await token('garbage');
    const before = host.count('/garbage');
    await token('garbage');
    await token('garbage');
    expect(host.count('/garbage')).toBe(before);
  });

  it('verifies a request object pushed to /par by the keys at the jwks_uri, and answers invalid_request_object when they cannot be had', async () => {
    const now = server.clock.seconds();
    const params = { client_id: 'jar', response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };
    const sign = (clientId: string, key: Pair) => new SignJWT({ ...params, client_id: clientId, iss: clientId, aud: server.issuer(), iat: now, exp: now + 300 }).setProtectedHeader({ alg: 'ES256', kid: key.publicJwk.kid as string }).sign(key.privateKey);
    const auth = async (clientId: string) => ({ client_assertion_type: JWT_BEARER, client_assertion: await assertion(clientId, first) });
    const pushed = await jsonOf(await rp.post('/par', { client_id: 'jar', request: await sign('jar', first), ...(await auth('jar')) }));
    expect(pushed.status).toBe(201);
    expect(pushed.body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    const stranger = await jsonOf(await rp.post('/par', { client_id: 'jar', request: await sign('jar', second), ...(await auth('jar')) }));
    expect({ status: stranger.status, error: stranger.body.error }).toEqual({ status: 400, error: 'invalid_request_object' });
  });
});

describe('registering a client with a jwks_uri', () => {
  it('takes one and shows it back; refuses it beside jwks, or over plain http to a public host', async () => {
    const admin = await adminToken(server, 'acme');
    const base = { token_endpoint_auth_method: 'private_key_jwt', grant_types: ['client_credentials'], scope: 'api:read' };
    const created = await adminCall(server, contract, 'POST', '/acme/configuration/clients', admin, { client_id: 'by-uri', jwks_uri: 'https://keys.example.com/jwks.json', ...base });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ jwks_uri: 'https://keys.example.com/jwks.json' });
    expect(created.body).not.toHaveProperty('jwks');
    const both = await adminCall(server, contract, 'POST', '/acme/configuration/clients', admin, { client_id: 'both', jwks_uri: 'https://keys.example.com/jwks.json', jwks: { keys: [first.publicJwk] }, ...base });
    expect(both.status).toBe(400);
    expect(JSON.stringify(both.body)).toMatch(/must not both/);
    const plain = await adminCall(server, contract, 'POST', '/acme/configuration/clients', admin, { client_id: 'plain', jwks_uri: 'http://keys.example.com/jwks.json', ...base });
    expect(plain.status).toBe(400);
    expect(JSON.stringify(plain.body)).toMatch(/http only on a loopback/);
  });
});
