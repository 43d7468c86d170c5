import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { Browser } from '../support/browser.js';
import { endToEnd } from '../support/suite.js';
import { ALICE_PASSWORD, BOOTSTRAP_YAML, REDIRECT, type TestServer, WEB_SECRET } from '../support/server.js';
import { jsonOf, RelyingParty } from '../support/rp.js';
import { EVENT_STORE, type EventStore } from '../../src/infrastructure/event-store/event-store.port.js';

let server: TestServer;
let rp: RelyingParty;
/** The usual tenants, a client of acme that must push its requests, and a tenant where every client must. */
const BOOTSTRAP = `${BOOTSTRAP_YAML.replace(
  '      - client_id: service',
  `      - client_id: pushy
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid"
        first_party: true
        require_pushed_authorization_requests: true
      - client_id: service`,
)}
  - id: pushed
    require_pushed_authorization_requests: true
    clients:
      - client_id: web
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid"
        first_party: true
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
`;
const contract = endToEnd((s) => ({ server, rp } = s), BOOTSTRAP);
afterEach(() => server.clock.release());

/** A fresh PKCE pair and the parameters of an authorization request for `clientId`. */
async function requestParams(clientId = 'web', extra: Record<string, string> = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const params = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'openid',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  });
  return { verifier, state, params };
}

/** Pushes a request through oauth4webapi; its answer, checked by the library. */
async function push(clientId = 'web', extra: Record<string, string> = {}, at = rp) {
  const req = await requestParams(clientId, extra);
  const res = await oauth.pushedAuthorizationRequest(at.as, at.client(clientId), at.auth(clientId), req.params, at.options);
  const pushed = await oauth.processPushedAuthorizationResponse(at.as, at.client(clientId), res);
  return { ...req, ...pushed };
}

/** Follows the browser from `/authorize` through the login form; the last response. */
async function authorize(url: string, browser = rp.browser()): Promise<Response> {
  let res = await browser.follow(url, server.baseUrl);
  if (res.status === 200 && (await res.clone().text()).includes('name="password"')) {
    const form = Browser.form(await res.text());
    res = await browser.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD });
  }
  return res;
}

/** A 400 HTML page naming `error`, never a redirect to the client. */
async function expectErrorPage(res: Response, error: string): Promise<void> {
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(await res.text()).toContain(error);
}

describe('pushed authorization requests (RFC 9126)', () => {
  it('announces the endpoint, and whether the tenant requires it', async () => {
    expect(rp.as.pushed_authorization_request_endpoint).toBe(rp.url('/par'));
    expect(rp.as.require_pushed_authorization_requests).toBe(false);
    expect(rp.as.request_uri_parameter_supported).toBe(false);
    const pushed = await RelyingParty.discover(server, contract, 'pushed');
    expect(pushed.as.require_pushed_authorization_requests).toBe(true);
  });

  it('takes a pushed request through oauth4webapi: 201, a short-lived request_uri, then the code flow with only client_id and request_uri', async () => {
    const p = await push();
    expect(p.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
    expect(p.expires_in).toBeGreaterThan(0);
    expect(p.expires_in).toBeLessThan(600);
    const res = await authorize(rp.authorizeUrl({ client_id: 'web', request_uri: p.request_uri }));
    expect(res.status).toBe(302);
    const params = oauth.validateAuthResponse(rp.as, rp.client('web'), new URL(res.headers.get('location')!), p.state);
    const tokens = await oauth.processAuthorizationCodeResponse(rp.as, rp.client('web'), await rp.redeemRequest('web', params, REDIRECT, p.verifier));
    expect(tokens.access_token).toBeDefined();
  });

  it('takes a pushed request through openid-client (buildAuthorizationUrlWithPAR), for a public client too', async () => {
    for (const [clientId, secret] of [['web', WEB_SECRET], ['spa', undefined]] as const) {
      const config = await oidc.discovery(new URL(server.issuer()), clientId, secret ? { client_secret: secret } : {}, secret ? oidc.ClientSecretBasic(secret) : oidc.None(), { execute: [oidc.allowInsecureRequests] });
      config[oidc.customFetch] = contract.fetch;
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = await oidc.buildAuthorizationUrlWithPAR(config, { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state });
      expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
      const res = await authorize(url.href);
      expect(res.status).toBe(302);
      const tokens = await oidc.authorizationCodeGrant(config, new URL(res.headers.get('location')!), { pkceCodeVerifier: verifier, expectedState: state });
      expect(tokens.access_token).toBeDefined();
    }
  });

  it('ignores the parameters sent beside request_uri, but for client_id', async () => {
    const p = await push('web', { scope: 'openid' });
    const res = await authorize(rp.authorizeUrl({ client_id: 'web', request_uri: p.request_uri, redirect_uri: 'https://evil.example/cb', state: 'other', scope: 'openid profile' }));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe(p.state);
  });

  it('takes a request_uri once: a second use is invalid_request_uri on the error page', async () => {
    const p = await push();
    const url = rp.authorizeUrl({ client_id: 'web', request_uri: p.request_uri });
    expect((await authorize(url)).status).toBe(302);
    await expectErrorPage(await rp.browser().get(url), 'invalid_request_uri');
  });

  it('lets only one of two simultaneous uses of a request_uri through', async () => {
    const p = await push();
    const url = rp.authorizeUrl({ client_id: 'web', request_uri: p.request_uri });
    const answers = await Promise.all([rp.browser().get(url), rp.browser().get(url)]);
    expect(answers.map((r) => r.status).sort()).toEqual([302, 400]);
  });

  it('refuses a request_uri once expired (the server clock moved past expires_in)', async () => {
    const p = await push();
    server.clock.freeze();
    server.clock.advance(p.expires_in * 1000);
    await expectErrorPage(await rp.browser().get(rp.authorizeUrl({ client_id: 'web', request_uri: p.request_uri })), 'invalid_request_uri');
  });

  it("refuses another client's request_uri, and leaves it to its own client", async () => {
    const p = await push('web');
    await expectErrorPage(await rp.browser().get(rp.authorizeUrl({ client_id: 'spa', request_uri: p.request_uri })), 'invalid_request_uri');
    expect((await authorize(rp.authorizeUrl({ client_id: 'web', request_uri: p.request_uri }))).status).toBe(302);
  });

  it('refuses a request_uri that this server did not issue, and one of another tenant', async () => {
    await expectErrorPage(await rp.browser().get(rp.authorizeUrl({ client_id: 'web', request_uri: 'urn:ietf:params:oauth:request_uri:abc' })), 'invalid_request_uri');
    await expectErrorPage(await rp.browser().get(rp.authorizeUrl({ client_id: 'web', request_uri: 'https://rp.example/request.jwt' })), 'invalid_request_uri');
    const other = await RelyingParty.discover(server, contract, 'pushed');
    const p = await push('web', {}, other);
    await expectErrorPage(await rp.browser().get(rp.authorizeUrl({ client_id: 'web', request_uri: p.request_uri })), 'invalid_request_uri');
  });

  it('refuses a request_uri inside a pushed request, and answers every other error of the request as JSON', async () => {
    const { params } = await requestParams('web', { request_uri: 'urn:ietf:params:oauth:request_uri:abc' });
    const auth = { authorization: `Basic ${Buffer.from(`web:${WEB_SECRET}`).toString('base64')}` };
    const nested = await jsonOf(await rp.post('/par', Object.fromEntries(params), auth));
    expect(nested.status).toBe(400);
    expect(nested.body.error).toBe('invalid_request');
    const cases: Array<[Record<string, string>, string]> = [
      [{ code_challenge: '' }, 'invalid_request'],
      [{ redirect_uri: 'https://evil.example/cb' }, 'invalid_request'],
      [{ scope: 'admin' }, 'invalid_scope'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ client_id: 'spa' }, 'invalid_request'],
    ];
    for (const [over, error] of cases) {
      const { params: p } = await requestParams('web', over);
      const res = await jsonOf(await rp.post('/par', Object.fromEntries(p), auth));
      expect([res.status, res.body.error]).toEqual([400, error]);
    }
  });

  it('authenticates the client as the token endpoint does', async () => {
    const { params } = await requestParams('web');
    const wrong = await jsonOf(await rp.post('/par', Object.fromEntries(params), { authorization: `Basic ${Buffer.from('web:wrong').toString('base64')}` }));
    expect([wrong.status, wrong.body.error]).toEqual([401, 'invalid_client']);
    const none = await jsonOf(await rp.post('/par', Object.fromEntries(params)));
    expect([none.status, none.body.error]).toEqual([401, 'invalid_client']);
    // The failure is recorded as at the other endpoints, naming this one.
    const failures = (await server.app.get<EventStore>(EVENT_STORE).readStream('clienttokens-acme.web')).filter((e) => e.type === 'ClientAuthenticationFailed');
    expect(failures.map((e) => (e.data as { endpoint: string }).endpoint)).toContain('par');
  });

  it('requires pushed requests of a client that registered so, and at a tenant that says so', async () => {
    rp.auths.set('pushy', () => oauth.ClientSecretBasic(WEB_SECRET));
    const plain = await rp.request({ clientId: 'pushy', scope: 'openid' });
    const refused = await rp.browser().get(plain.url);
    expect(refused.status).toBe(302);
    expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const p = await push('pushy');
    expect((await authorize(rp.authorizeUrl({ client_id: 'pushy', request_uri: p.request_uri }))).status).toBe(302);

    const tenant = await RelyingParty.discover(server, contract, 'pushed');
    const direct = await tenant.request({ scope: 'openid' });
    const res = await tenant.browser().get(direct.url);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const q = await push('web', {}, tenant);
    expect((await authorize(tenant.authorizeUrl({ client_id: 'web', request_uri: q.request_uri }))).status).toBe(302);
  });

  it('keeps only the SHA-256 of a request_uri in the event log', async () => {
    const p = await push();
    const events = await server.app.get<EventStore>(EVENT_STORE).readAll({ maxCount: 100_000 });
    const log = JSON.stringify(events);
    expect(log).toContain('AuthorizationRequestPushed');
    expect(log).not.toContain(p.request_uri.split(':').at(-1));
  });
});
