import { jest } from '@jest/globals';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import * as oauth from 'oauth4webapi';
import { sessionEvents, tokenHistory } from '../support/audit.js';
import { ContractFetch } from '../support/contract-fetch.js';
import { nodeRequest } from '../support/node-request.js';
import { basic, decodeJwt, jsonOf, oauthError, RelyingParty } from '../support/rp.js';
import { EVENT_STORE, type EventStore, StoreOutcomeUnknownError } from '../../src/infrastructure/event-store/event-store.port.js';
import { REDIRECT, SERVICE_SECRET, startTestServer, type TestServer, THIRD_SECRET, WEB_SECRET } from '../support/server.js';

let server: TestServer;
let rp: RelyingParty;
let other: RelyingParty;
const contract = new ContractFetch();
/** Every response of a token endpoint (`/token` or `/oauth/token`) seen in this file. */
const tokenResponses: Array<{ url: string; status: number; cacheControl: string | null }> = [];

beforeAll(async () => {
  // Behind a proxy on loopback (TRUST_PROXY=loopback): the requests of this file come from
  // 127.0.0.1, which is then taken for that proxy.
  server = await startTestServer(undefined, { trustProxy: ['loopback'] });
  const fetchAndRecord = contract.fetch;
  Object.defineProperty(contract, 'fetch', {
    value: async (input: string | URL | Request, init?: RequestInit) => {
      const res = await fetchAndRecord(input, init);
      const url = input instanceof Request ? input.url : input.toString();
      if (/\/(oauth\/)?token$/.test(new URL(url).pathname)) tokenResponses.push({ url, status: res.status, cacheControl: res.headers.get('cache-control') });
      return res;
    },
  });
  rp = await RelyingParty.discover(server, contract);
  other = await RelyingParty.discover(server, contract, 'other');
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  expect(contract.violations.splice(0)).toEqual([]);
  // Every token response, success or error, is marked no-store (RFC 6749 §5.1, §5.2).
  for (const r of tokenResponses.splice(0)) expect(r).toEqual({ ...r, cacheControl: 'no-store' });
});

/** A code for `clientId` from a fresh sign-in, with what is needed to redeem it. */
async function code(clientId = 'web', o: Parameters<RelyingParty['signIn']>[1] = {}) {
  const s = await rp.signIn(rp.browser(), { clientId, ...o });
  return { s, params: rp.codeParams(s, clientId) };
}

async function redeemError(clientId: string, params: URLSearchParams, redirectUri: string, verifier: string | typeof oauth.nopkce) {
  return oauthError(oauth.processAuthorizationCodeResponse(rp.as, rp.client(clientId), await rp.redeemRequest(clientId, params, redirectUri, verifier)));
}

describe('malformed requests and unsupported grants', () => {
  it('answers a request without grant_type with invalid_request', async () => {
    const { status, body, headers } = await jsonOf(await rp.post('/token', { scope: 'orders:read' }, { authorization: basic('service', SERVICE_SECRET) }));
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it('answers the device grant of a client not registered for it with unauthorized_client (RFC 6749 §5.2)', async () => {
    const res = await oauth.genericTokenEndpointRequest(rp.as, rp.client('web'), rp.auth('web'), 'urn:ietf:params:oauth:grant-type:device_code', { device_code: 'x' }, rp.options);
    const e = await oauthError(oauth.processGenericTokenEndpointResponse(rp.as, rp.client('web'), res));
    expect(e).toMatchObject({ status: 400, error: 'unauthorized_client' });
  });

  it.each(['urn:example:unknown', 'password', 'implicit', 'token'])('answers grant_type=%s with unsupported_grant_type', async (grantType) => {
    const params: Record<string, string> = grantType === 'password' ? { username: 'alice', password: 'correct horse battery staple', scope: 'openid' } : {};
    const res = await oauth.genericTokenEndpointRequest(rp.as, rp.client('web'), rp.auth('web'), grantType, params, rp.options);
    const e = await oauthError(oauth.processGenericTokenEndpointResponse(rp.as, rp.client('web'), res));
    expect(e).toMatchObject({ status: 400, error: 'unsupported_grant_type' });
  });

  it('quotes a grant_type back only as printable ASCII without double quotes or backslashes (RFC 6749 §5.2)', async () => {
    const { status, body } = await jsonOf(await rp.post('/token', { grant_type: 'x"\\\u0000é\n' }, { authorization: basic('service', SERVICE_SECRET) }));
    expect({ status, error: body.error }).toEqual({ status: 400, error: 'unsupported_grant_type' });
    expect(body.error_description).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
    expect(body.error_description).toContain("x'??");
  });

  it('answers a path that is not valid percent-encoding, and a tenant id too long to exist, like any other bad request', async () => {
    for (const [path, status, error] of [['/%E0%A4/token', 400, 'invalid_request'], ['/%zz/token', 400, 'invalid_request'], [`/${'a'.repeat(200)}/token`, 404, 'not_found']] as const) {
      const { status: got, body, headers } = await jsonOf(await fetch(`${server.baseUrl}${path}`, { method: 'POST', body: 'grant_type=client_credentials' }));
      expect({ path, status: got, body: Object.keys(body), error: body.error }).toEqual({ path, status, body: ['error', 'error_description'], error });
      expect(headers.get('cache-control')).toBe('no-store');
      expect(headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('answers a request the HTTP parser refuses with an OAuth error body', async () => {
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1', () => socket.end(request));
        let answer = '';
        socket.on('data', (d) => (answer += d.toString()));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    const answer = await raw('POST /acme/token HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/\r\ncache-control: no-store\r\n/i);
    expect(answer).toMatch(/\r\nx-request-id: [0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'invalid_request', error_description: 'malformed HTTP request' });
    // What Node would answer itself with a bare status: no Host or two (RFC 9112 §3.2), an
    // expectation other than 100-continue (RFC 9110 §10.1.1).
    const form = 'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 29\r\nConnection: close';
    const refusals: Array<[string, string, string]> = [
      ['', '400', 'the Host header is required'],
      ['Host: a\r\nHost: b\r\n', '400', 'send a single Host header'],
      ['Host: x\r\nExpect: teapot\r\n', '417', 'the only expectation met is 100-continue'],
    ];
    for (const [headers, status, description] of refusals) {
      const refused = await raw(`POST /acme/token HTTP/1.1\r\n${headers}${form}\r\n\r\ngrant_type=client_credentials`);
      expect(refused).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(refused).toMatch(/\r\ncache-control: no-store\r\n/i);
      expect(refused).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
      expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'invalid_request', error_description: description });
    }
    // A URL longer than the header limit is 414 (RFC 9112 §3); headers too large are 431.
    for (const [request, status] of [
      [`GET /acme/authorize?state=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, '414'],
      [`GET /acme/authorize?state=${'a'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, '414'],
      [`GET /acme/authorize HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`, '431'],
    ]) {
      const refused = await raw(request);
      expect(refused).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: 'invalid_request' });
    }
    // HTTP/1.0 needs no Host.
    expect(await raw('GET /acme/.well-known/openid-configuration HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers another method than POST with 405 and Allow: POST (RFC 9110 §15.5.6); an unknown path stays 404', async () => {
    // Whatever the body: one that does not even parse (a key the form parser refuses) is still a wrong method first.
    const form = { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '__proto__=x' };
    for (const [method, init] of [['GET', {}], ['PUT', {}], ['DELETE', {}], ['PUT', form], ['PATCH', form]] as const) {
      const res = await jsonOf(await fetch(rp.url('/token'), { method, ...init }));
      expect(res).toMatchObject({ status: 405, body: { error: 'invalid_request' } });
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    expect((await jsonOf(await fetch(rp.url('/tokens'), { method: 'POST' }))).status).toBe(404);
    // A page a browser opens answers with its HTML error page.
    const page = await fetch(rp.url('/authorize'), { method: 'PUT' });
    expect(page.status).toBe(405);
    expect(page.headers.get('allow')).toBe('GET, POST');
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('answers a JSON body with invalid_request', async () => {
    const res = await contract.fetch(`${rp.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic('service', SERVICE_SECRET) },
      body: JSON.stringify({ grant_type: 'client_credentials' }),
    });
    const { status, body } = await jsonOf(res);
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
    // Not even parseable: refused before the controller, still as an OAuth error.
    const broken = await contract.fetch(`${rp.issuer}/token`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: basic('service', SERVICE_SECRET) }, body: '{' });
    expect(await jsonOf(broken)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('answers a body over 64 KiB with 413, and a compressed one with 415, both invalid_request (RFC 9110 §15.5.14, §15.5.16)', async () => {
    const headers = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('service', SERVICE_SECRET) };
    const large = await contract.fetch(`${rp.issuer}/token`, { method: 'POST', headers, body: `grant_type=client_credentials&pad=${'a'.repeat(70_000)}` });
    expect(await jsonOf(large)).toMatchObject({ status: 413, body: { error: 'invalid_request' } });
    const gzipped = await contract.fetch(`${rp.issuer}/token`, { method: 'POST', headers: { ...headers, 'content-encoding': 'gzip' }, body: new Uint8Array(gzipSync('grant_type=client_credentials')) });
    expect(await jsonOf(gzipped)).toMatchObject({ status: 415, body: { error: 'invalid_request' } });
    // Declared as the identity coding, the body is read as it is.
    const identity = await contract.fetch(`${rp.issuer}/token`, { method: 'POST', headers: { ...headers, 'content-encoding': 'identity' }, body: 'grant_type=client_credentials' });
    expect(identity.status).toBe(200);
  });

  it("ignores unknown parameters in the endpoint's query, and refuses a token request's own parameters there (RFC 6749 §3.1, §3.2)", async () => {
    const post = (query: string) =>
      contract.fetch(`${rp.issuer}/token${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('service', SERVICE_SECRET) },
        body: 'grant_type=client_credentials',
      });
    expect((await post('?tracking=1&__proto__=x')).status).toBe(200);
    for (const query of ['?grant_type=client_credentials', '?x=1&client_secret=s3cret', '?client_secret=s3cret&x=%zz']) {
      expect(await jsonOf(await post(query))).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: expect.stringMatching(/belongs in the request body|not valid percent-encoded/) } });
    }
  });

  it('reads the body as UTF-8 only: another charset, bytes that are not UTF-8 and broken percent-escapes get invalid_request', async () => {
    const post = (body: string | Uint8Array, type = 'application/x-www-form-urlencoded') =>
      contract.fetch(`${rp.issuer}/token`, { method: 'POST', headers: { 'content-type': type, authorization: basic('service', SERVICE_SECRET) }, body });
    const form = 'grant_type=client_credentials';
    expect((await post(form, 'application/x-www-form-urlencoded; charset=UTF-8')).status).toBe(200);
    expect((await post(`${form}&__proto__=1&constructor=2`)).status).toBe(200);
    // ASCII reads the same in any charset; beyond it, only UTF-8 is read.
    expect((await post(`${form}&x=%3D`, 'application/x-www-form-urlencoded; charset=ISO-8859-1')).status).toBe(200);
    for (const [body, type] of [
      [`${form}&x=caf%C3%A9`, 'application/x-www-form-urlencoded; charset=ISO-8859-1'],
      [Buffer.concat([Buffer.from(`${form}&x=caf`), Buffer.from([0xe9])]), undefined],
      [`${form}&x=caf%E9`, undefined],
      [`${form}&x=%zz`, undefined],
    ] as const) {
      expect(await jsonOf(await post(typeof body === 'string' ? body : new Uint8Array(body), type))).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    }
  });

  it('answers a repeated parameter with invalid_request', async () => {
    const res = await contract.fetch(`${rp.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('service', SERVICE_SECRET) },
      body: 'grant_type=client_credentials&scope=orders:read&scope=orders:write',
    });
    const { status, body } = await jsonOf(res);
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
  });
});

describe('client authentication', () => {
  it('answers a bad secret sent with Basic with 401 invalid_client and a Basic challenge', async () => {
    const res = await oauth.clientCredentialsGrantRequest(rp.as, rp.client('service'), oauth.ClientSecretBasic('wrong-secret'), {}, rp.options);
    const e = await oauthError(oauth.processClientCredentialsResponse(rp.as, rp.client('service'), res));
    expect(e).toMatchObject({ status: 401, error: 'invalid_client', cacheControl: 'no-store' });
    expect(e.wwwAuthenticate).toMatch(/^Basic( |$)/);
  });

  it('answers a bad secret sent with client_secret_post with 401 invalid_client and the Basic challenge (every 401 names a scheme, RFC 9110 §15.5.2)', async () => {
    const res = await oauth.genericTokenEndpointRequest(
      rp.as,
      rp.client('third'),
      oauth.ClientSecretPost('wrong-secret'),
      'authorization_code',
      { code: 'whatever', redirect_uri: REDIRECT, code_verifier: oauth.generateRandomCodeVerifier() },
      rp.options,
    );
    const e = await oauthError(oauth.processGenericTokenEndpointResponse(rp.as, rp.client('third'), res));
    expect(e).toMatchObject({ status: 401, error: 'invalid_client', wwwAuthenticate: 'Basic realm="token", charset="UTF-8"' });
  });

  it('answers an unknown client with 401 invalid_client', async () => {
    const res = await oauth.clientCredentialsGrantRequest(rp.as, rp.client('nobody'), oauth.ClientSecretBasic('x'), {}, rp.options);
    expect(await oauthError(oauth.processClientCredentialsResponse(rp.as, rp.client('nobody'), res))).toMatchObject({ status: 401, error: 'invalid_client' });
  });

  it('refuses a client that uses a method other than its registered one, even with the right secret', async () => {
    // web is registered for client_secret_basic, third for client_secret_post.
    const post = await oauth.refreshTokenGrantRequest(rp.as, rp.client('web'), oauth.ClientSecretPost(WEB_SECRET), 'x', rp.options);
    expect(await oauthError(oauth.processRefreshTokenResponse(rp.as, rp.client('web'), post))).toMatchObject({ status: 401, error: 'invalid_client', wwwAuthenticate: expect.stringMatching(/^Basic/) });
    const basicAuth = await oauth.refreshTokenGrantRequest(rp.as, rp.client('third'), oauth.ClientSecretBasic(THIRD_SECRET), 'x', rp.options);
    const e = await oauthError(oauth.processRefreshTokenResponse(rp.as, rp.client('third'), basicAuth));
    expect(e).toMatchObject({ status: 401, error: 'invalid_client' });
    expect(e.wwwAuthenticate).toMatch(/^Basic/);
    // A confidential client may not act as a public one by leaving its secret out.
    const none = await oauth.refreshTokenGrantRequest(rp.as, rp.client('web'), oauth.None(), 'x', rp.options);
    expect(await oauthError(oauth.processRefreshTokenResponse(rp.as, rp.client('web'), none))).toMatchObject({ status: 401, error: 'invalid_client' });
  });

  it("records a registered client's failed authentications on its history, at every endpoint, and never what was presented", async () => {
    const failures = async () => (await tokenHistory(server, { clientId: 'service' })).filter((h) => h.type === 'ClientAuthenticationFailed');
    const earlier = (await failures()).length;
    const attempts = [
      rp.post('/token', { grant_type: 'client_credentials' }, { authorization: basic('service', 'guessed-secret-1') }),
      rp.post('/introspect', { token: 'x' }, { authorization: basic('service', 'guessed-secret-2') }),
      rp.post('/revoke', { token: 'x', client_id: 'service', client_secret: 'guessed-secret-3' }),
      rp.post('/token', { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'guessed-secret-4' }),
    ];
    for (const res of await Promise.all(attempts)) expect(res.status).toBe(401);
    const failed = (await failures()).slice(earlier);
    expect(failed.map((h) => ({ actor: h.actor, ...h.data }))).toEqual(
      expect.arrayContaining([
        { actor: 'anonymous', tenantId: 'acme', clientId: 'service', endpoint: 'token', method: 'client_secret_basic', reason: 'wrong_secret' },
        { actor: 'anonymous', tenantId: 'acme', clientId: 'service', endpoint: 'introspect', method: 'client_secret_basic', reason: 'wrong_secret' },
        { actor: 'anonymous', tenantId: 'acme', clientId: 'service', endpoint: 'revoke', method: 'client_secret_post', reason: 'wrong_method' },
      ]),
    );
    expect(failed).toHaveLength(3);
    expect(JSON.stringify(await tokenHistory(server, { clientId: 'nobody' }))).toBe('[]');
    expect(JSON.stringify(failed)).not.toContain('guessed-secret');
  });

  it("records at most ten of a client's failed authentications a minute, so a flood of wrong secrets cannot flood the log", async () => {
    const failures = async () => (await tokenHistory(server, { clientId: 'third' })).filter((h) => h.type === 'ClientAuthenticationFailed').length;
    const before = await failures();
    const flood = await Promise.all(Array.from({ length: 14 }, () => rp.post('/token', { grant_type: 'authorization_code', code: 'x', client_id: 'third', client_secret: 'wrong' })));
    expect(flood.every((r) => r.status === 401)).toBe(true);
    // Earlier failures of this client may share the minute; either way no more than ten are recorded in it.
    const during = (await failures()) - before;
    expect(during).toBeGreaterThan(0);
    expect(during).toBeLessThanOrEqual(10);
  });

  it('answers a request without any client authentication with 401 invalid_client', async () => {
    const { status, body, headers } = await jsonOf(await rp.post('/token', { grant_type: 'client_credentials' }));
    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
    expect(headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('answers any other use of the Authorization header with 401 invalid_client and a Basic challenge', async () => {
    for (const authorization of ['Basic', 'Basic ', 'Bearer abc', 'Digest username="service"', 'Basicc2VydmljZTp4']) {
      const { status, body, headers } = await jsonOf(await rp.post('/token', { grant_type: 'client_credentials' }, { authorization }));
      expect({ authorization, status, error: body.error }).toEqual({ authorization, status: 401, error: 'invalid_client' });
      expect(headers.get('www-authenticate')).toMatch(/^Basic /);
    }
  });

  it('refuses Basic credentials that are not padded base64 (RFC 7617 §2, RFC 4648 §4), and two Authorization headers, whichever comes first', async () => {
    const good = basic('service', SERVICE_SECRET);
    // Unpadded, or with a sixth of a byte more: Buffer would read either as the good credentials.
    const odd = good.endsWith('=') ? good.replace(/=+$/, '') : `${good}A`;
    for (const authorization of [`${good}, Basic garbage`, `${good} trailing`, `${good.slice(0, -2)}*${good.slice(-1)}`, odd]) {
      expect(await jsonOf(await rp.post('/token', { grant_type: 'client_credentials' }, { authorization }))).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    }
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    for (const authorization of [[good, basic('service', 'wrong')], [basic('service', 'wrong'), good]]) {
      const r = await nodeRequest(`${rp.issuer}/token`, 'POST', { ...form, authorization }, 'grant_type=client_credentials');
      expect({ status: r.status, error: JSON.parse(r.body).error, cacheControl: r.headers['cache-control'] }).toEqual({ status: 400, error: 'invalid_request', cacheControl: 'no-store' });
    }
    expect((await nodeRequest(`${rp.issuer}/token`, 'POST', { ...form, authorization: good }, 'grant_type=client_credentials')).status).toBe(200);
  });

  it('refuses Basic credentials together with a client_secret in the body', async () => {
    const res = await rp.post('/token', { grant_type: 'client_credentials', client_secret: SERVICE_SECRET }, { authorization: basic('service', SERVICE_SECRET) });
    // RFC 6749 §2.3: one authentication method per request.
    const { status, body } = await jsonOf(res);
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
  });
});

describe('authorization_code', () => {
  it('lets the public client spa redeem a code with its client_id only', async () => {
    const { s } = await code('spa', { scope: 'openid profile offline_access' });
    const tokens = await rp.redeem('spa', s);
    expect(decodeJwt(tokens.access_token).payload).toMatchObject({ client_id: 'spa', iss: rp.issuer });
    expect(tokens.refresh_token).toBeTruthy();
    expect(await rp.refresh('spa', tokens.refresh_token!)).toMatchObject({ token_type: 'bearer' });
  });

  it('refuses a code redeemed twice, and revokes the tokens of the first redemption', async () => {
    const { s, params } = await code();
    const first = await rp.redeem('web', s);
    expect(await rp.active(first.access_token)).toBe(true);
    expect(await rp.active(first.refresh_token!)).toBe(true);
    expect(await redeemError('web', params, REDIRECT, s.verifier)).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(await rp.active(first.access_token)).toBe(false);
    expect(await rp.active(first.refresh_token!)).toBe(false);
    expect(await oauthError(rp.refresh('web', first.refresh_token!))).toMatchObject({ error: 'invalid_grant' });
    // A third attempt is refused as well.
    expect(await redeemError('web', params, REDIRECT, s.verifier)).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a code presented by another client, recording the attempt, and the right client can still redeem it', async () => {
    const { s, params } = await code();
    expect(await redeemError('spa', params, REDIRECT, s.verifier)).toMatchObject({ status: 400, error: 'invalid_grant', description: 'the code was issued to another client' });
    expect(await redeemError('web', params, REDIRECT, oauth.generateRandomCodeVerifier())).toMatchObject({ status: 400, error: 'invalid_grant' });
    const tokens = await rp.redeem('web', s);
    expect(await rp.active(tokens.access_token)).toBe(true);
    const events = await sessionEvents(server, params.get('code')!);
    expect(events.filter((e) => e.type === 'CodeRefused').map((e) => [e.data.clientId, e.data.presentedBy, e.data.reason])).toEqual([
      ['web', 'spa', 'other_client'],
      ['web', 'web', 'code_verifier'],
    ]);
    // The presenting client holds a leaked code: its own history lists the attempt too, saying only whose the code was
    // (and the owner's lists each attempt once).
    const grantId = events.find((e) => e.type === 'CodeRefused')!.data.grantId;
    const owners = (await tokenHistory(server, { clientId: 'web' })).filter((e) => e.type === 'CodeRefused' && e.data.grantId === grantId);
    expect(owners.map((e) => e.data.reason)).toEqual(['other_client', 'code_verifier']);
    const presenters = (await tokenHistory(server, { clientId: 'spa' })).filter((e) => e.eventId === owners[0].eventId);
    expect(presenters).toEqual([expect.objectContaining({ clientId: 'spa', data: { clientId: 'web', presentedBy: 'spa', reason: 'other_client' } })]);
  });

  it('refuses a wrong redirect_uri with invalid_grant', async () => {
    const { s, params } = await code();
    expect(await redeemError('web', params, 'http://127.0.0.1:9999/other', s.verifier)).toMatchObject({ error: 'invalid_grant' });
    expect(await redeemError('web', params, 'http://127.0.0.1:9998/cb', s.verifier)).toMatchObject({ error: 'invalid_grant' });
  });

  it('needs redirect_uri when the authorization request carried it, and not when that request left it out (RFC 6749 §4.1.3)', async () => {
    const post = (params: URLSearchParams, verifier: string, redirectUri?: string) =>
      rp.post('/token', { grant_type: 'authorization_code', code: params.get('code')!, code_verifier: verifier, ...(redirectUri ? { redirect_uri: redirectUri } : {}) }, { authorization: basic('web', WEB_SECRET) });
    const sent = await code();
    const refused = await jsonOf(await post(sent.params, sent.s.verifier));
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect((await post(sent.params, sent.s.verifier, REDIRECT)).status).toBe(200);

    // Only a request that is not OpenID Connect may leave redirect_uri out.
    const omitted = await code('web', { scope: 'profile', extra: { redirect_uri: undefined } });
    expect((await post(omitted.params, omitted.s.verifier)).status).toBe(200);
    const other = await code('web', { scope: 'profile', extra: { redirect_uri: undefined } });
    expect(await jsonOf(await post(other.params, other.s.verifier, 'http://127.0.0.1:9999/other'))).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses a wrong code_verifier with invalid_grant', async () => {
    const { params } = await code();
    expect(await redeemError('web', params, REDIRECT, oauth.generateRandomCodeVerifier())).toMatchObject({ status: 400, error: 'invalid_grant' });
  });

  it('refuses a missing code_verifier with invalid_request', async () => {
    const { params } = await code();
    expect(await redeemError('web', params, REDIRECT, oauth.nopkce)).toMatchObject({ status: 400, error: 'invalid_request' });
  });

  it('refuses a code_verifier shorter than 43 characters with invalid_request', async () => {
    const { s, params } = await code();
    expect(await redeemError('web', params, REDIRECT, s.verifier.slice(0, 42))).toMatchObject({ status: 400, error: 'invalid_request' });
  });

  it('refuses an unknown or malformed code with invalid_grant', async () => {
    const { s } = await code();
    // The right session, a made-up secret; then no shape of a code at all.
    const forged = `${s.callback!.searchParams.get('code')!.slice(0, 23)}${'A'.repeat(43)}`;
    for (const value of [forged, 'garbage']) {
      const res = await oauth.genericTokenEndpointRequest(rp.as, rp.client('web'), rp.auth('web'), 'authorization_code', { code: value, redirect_uri: REDIRECT, code_verifier: s.verifier }, rp.options);
      expect(await oauthError(oauth.processGenericTokenEndpointResponse(rp.as, rp.client('web'), res))).toMatchObject({ status: 400, error: 'invalid_grant' });
    }
    // The real code still works.
    expect((await rp.redeem('web', s)).access_token).toBeTruthy();
  });

  it('works end to end with the plain PKCE method', async () => {
    const { s } = await code('web', { method: 'plain' });
    const tokens = await rp.redeem('web', s);
    expect(tokens.id_token).toBeTruthy();
    // plain: the verifier is the challenge, so its S256 transform must not be accepted as the verifier.
    const again = await code('web', { method: 'plain' });
    const hashed = await oauth.calculatePKCECodeChallenge(again.s.verifier);
    expect(await redeemError('web', again.params, REDIRECT, hashed)).toMatchObject({ error: 'invalid_grant' });
  });

  it('is served at /oauth/token too', async () => {
    const alias: oauth.AuthorizationServer = { ...rp.as, token_endpoint: `${rp.issuer}/oauth/token` };
    const { s, params } = await code();
    const res = await rp.redeemRequest('web', params, REDIRECT, s.verifier, alias);
    expect(res.url).toBe(`${rp.issuer}/oauth/token`);
    const tokens = await oauth.processAuthorizationCodeResponse(alias, rp.client('web'), res, { expectedNonce: s.nonce, requireIdToken: true });
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await oauth.refreshTokenGrantRequest(alias, rp.client('web'), rp.auth('web'), tokens.refresh_token!, rp.options);
    const next = await oauth.processRefreshTokenResponse(alias, rp.client('web'), refreshed);
    expect(next.access_token).toBeTruthy();
    const bad = await oauth.clientCredentialsGrantRequest(alias, rp.client('service'), oauth.ClientSecretBasic('wrong'), {}, rp.options);
    const e = await oauthError(oauth.processClientCredentialsResponse(alias, rp.client('service'), bad));
    expect(e).toMatchObject({ status: 401, error: 'invalid_client' });
    expect(e.wwwAuthenticate).toMatch(/^Basic/);
    // The same replay rule: the second redemption fails and revokes what the first produced.
    const again = await oauth.authorizationCodeGrantRequest(alias, rp.client('web'), rp.auth('web'), params, REDIRECT, s.verifier, rp.options);
    expect(await oauthError(oauth.processAuthorizationCodeResponse(alias, rp.client('web'), again))).toMatchObject({ error: 'invalid_grant' });
    expect(await rp.active(next.access_token)).toBe(false);
  });
});

describe('refresh_token', () => {
  it('refuses a refresh token presented by another client without revoking the session', async () => {
    const tokens = await rp.tokens();
    expect(await oauthError(rp.refresh('spa', tokens.refresh_token!))).toMatchObject({ status: 400, error: 'invalid_grant', description: 'the refresh token was issued to another client' });
    expect((await sessionEvents(server, tokens.refresh_token!)).at(-1)).toMatchObject({ type: 'RefreshRefused', data: { clientId: 'web', presentedBy: 'spa' }, metadata: { actor: 'client:spa' } });
    const refused = (await tokenHistory(server, { clientId: 'spa' })).filter((e) => e.type === 'RefreshRefused');
    expect(refused.at(-1)).toMatchObject({ clientId: 'spa', data: { clientId: 'web', presentedBy: 'spa' } });
    expect(await rp.active(tokens.access_token)).toBe(true);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
    const next = await rp.refresh('web', tokens.refresh_token!);
    expect(next.refresh_token).toBeTruthy();
    expect(await rp.active(next.access_token)).toBe(true);
  });

  it('refuses a refresh token of tenant acme at tenant other, without harm at acme', async () => {
    const tokens = await rp.tokens();
    const res = await oauth.refreshTokenGrantRequest(other.as, other.client('web'), oauth.ClientSecretBasic(WEB_SECRET), tokens.refresh_token!, other.options);
    expect(await oauthError(oauth.processRefreshTokenResponse(other.as, other.client('web'), res))).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect((await rp.refresh('web', tokens.refresh_token!)).access_token).toBeTruthy();
  });

  it('does not grant offline_access to a client that may not use the refresh_token grant, since no refresh token comes of it (OpenID Connect Core §11)', async () => {
    const tokens = await rp.tokens({ clientId: 'coded', scope: 'openid profile offline_access' });
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.scope).toBe('openid profile');
    expect(decodeJwt(tokens.access_token).payload.scope).toBe('openid profile');
    // Asked for alone, nothing is left to grant.
    const { url, state } = await rp.request({ clientId: 'coded', scope: 'offline_access' });
    const location = new URL((await rp.browser().follow(url, server.baseUrl)).headers.get('location') ?? 'http://x/');
    expect({ error: location.searchParams.get('error'), state: location.searchParams.get('state') }).toEqual({ error: 'invalid_scope', state });
  });

  it('refuses a scope wider than the original grant with invalid_scope', async () => {
    const tokens = await rp.tokens({ scope: 'openid offline_access' });
    const res = await oauth.refreshTokenGrantRequest(rp.as, rp.client('web'), rp.auth('web'), tokens.refresh_token!, { ...rp.options, additionalParameters: { scope: 'openid email offline_access' } });
    expect(await oauthError(oauth.processRefreshTokenResponse(rp.as, rp.client('web'), res))).toMatchObject({ error: 'invalid_scope' });
  });

  it('reads an empty scope as none sent, and one of spaces only as malformed (RFC 6749 §3.3, §6)', async () => {
    const tokens = await rp.tokens({ scope: 'openid offline_access' });
    const refresh = (scope: string, token: string) => rp.post('/token', { grant_type: 'refresh_token', refresh_token: token, scope }, { authorization: basic('web', WEB_SECRET) });
    expect(await jsonOf(await refresh(' ', tokens.refresh_token!))).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    const { status, body } = await jsonOf(await refresh('', tokens.refresh_token!));
    expect(status).toBe(200);
    expect(body.scope).toBe('openid offline_access');
    expect(decodeJwt(body.access_token as string).payload.scope).toBe('openid offline_access');
    expect(await jsonOf(await rp.post('/token', { grant_type: 'client_credentials', scope: '  ' }, { authorization: basic('service', SERVICE_SECRET) }))).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
  });

  it('answers server_error, not a retry, when the store cannot tell whether the rotation was recorded (an fsync failed)', async () => {
    const tokens = await rp.tokens();
    const unknown = new StoreOutcomeUnknownError('event store: disk I/O error (SQLITE_IOERR_FSYNC); the write may be in the log or not');
    const append = jest.spyOn(server.app.get<EventStore>(EVENT_STORE), 'append').mockRejectedValueOnce(unknown);
    try {
      const res = await rp.post('/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }, { authorization: basic('web', WEB_SECRET) });
      expect(await jsonOf(res)).toMatchObject({ status: 500, body: { error: 'server_error', error_description: 'the server could not confirm that this was recorded: it may have taken effect or not' } });
    } finally {
      append.mockRestore();
    }
  });

  it('refuses a missing refresh_token with invalid_request and garbage with invalid_grant', async () => {
    expect((await jsonOf(await rp.post('/token', { grant_type: 'refresh_token' }, { authorization: basic('web', WEB_SECRET) }))).body.error).toBe('invalid_request');
    expect(await oauthError(rp.refresh('web', 'garbage'))).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('client_credentials', () => {
  it('answers a client without the grant with unauthorized_client', async () => {
    const res = await oauth.clientCredentialsGrantRequest(rp.as, rp.client('web'), rp.auth('web'), {}, rp.options);
    expect(await oauthError(oauth.processClientCredentialsResponse(rp.as, rp.client('web'), res))).toMatchObject({ status: 400, error: 'unauthorized_client' });
  });

  it.each(['orders:delete', 'orders:read admin', 'openid'])('answers scope=%s with invalid_scope', async (scope) => {
    expect(await oauthError(rp.clientCredentials('service', scope))).toMatchObject({ status: 400, error: 'invalid_scope' });
  });

  it('issues a token with the registered scopes when none is asked for', async () => {
    const t = await rp.clientCredentials('service');
    expect(t.scope?.split(' ').sort()).toEqual(['orders:read', 'orders:write']);
    expect(t.refresh_token).toBeUndefined();
  });
  it('records the address the trusted proxy forwarded, skipping no untrusted hop, and a User-Agent of at most 512 characters', async () => {
    const issue = async (headers: Record<string, string>) => {
      const res = await rp.post('/token', { grant_type: 'client_credentials' }, { authorization: basic('service', SERVICE_SECRET), ...headers });
      expect(res.status).toBe(200);
      const [entry] = (await tokenHistory(server, { clientId: 'service' })).filter((h) => h.correlationId === res.headers.get('x-request-id'));
      return entry;
    };
    // What the client wrote itself (203.0.113.9) stays behind the address the proxy saw.
    expect(await issue({ 'x-forwarded-for': '203.0.113.9, 198.51.100.2', 'user-agent': 'x'.repeat(600) })).toMatchObject({
      sourceIp: '198.51.100.2',
      userAgent: 'x'.repeat(512),
    });
    expect(await issue({ 'x-forwarded-for': '2001:db8::1' })).toMatchObject({ sourceIp: '2001:db8::1' });
    // An IPv6 zone names an interface, and could be of any length: the address alone is kept.
    expect(await issue({ 'x-forwarded-for': `fe80::1%${'z'.repeat(5000)}` })).toMatchObject({ sourceIp: 'fe80::1' });
    // Something that is no address is not recorded as one.
    expect(await issue({ 'x-forwarded-for': '<script>' })).not.toHaveProperty('sourceIp');
    expect(await issue({})).toMatchObject({ sourceIp: '127.0.0.1' });
  });
});

describe('concurrency', () => {
  it('of 50 parallel redemptions of one code, exactly one succeeds', async () => {
    const { s, params } = await code();
    const responses = await Promise.all(Array.from({ length: 50 }, () => rp.redeemRequest('web', params, REDIRECT, s.verifier)));
    const bodies = await Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) as { error?: string } })));
    expect(bodies.filter((b) => b.status === 200)).toHaveLength(1);
    expect(bodies.filter((b) => b.status !== 200).map((b) => `${b.status} ${b.body.error}`)).toEqual(Array(49).fill('400 invalid_grant'));
  });

  it('of 50 parallel refreshes with one refresh token, exactly one succeeds and the others get invalid_grant', async () => {
    const tokens = await rp.tokens();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => oauth.refreshTokenGrantRequest(rp.as, rp.client('web'), rp.auth('web'), tokens.refresh_token!, rp.options)),
    );
    const bodies = await Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) as { error?: string; refresh_token?: string } })));
    const ok = bodies.filter((b) => b.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0].body.refresh_token).toBeTruthy();
    expect(bodies.filter((b) => b.status !== 200).map((b) => `${b.status} ${b.body.error}`)).toEqual(Array(49).fill('400 invalid_grant'));
  });
});
