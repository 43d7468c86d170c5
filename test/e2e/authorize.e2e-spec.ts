import { jest } from '@jest/globals';
import * as oauth from 'oauth4webapi';
import { sessionEvents, tokenHistory } from '../support/audit.js';
import { endToEnd } from '../support/suite.js';
import { Browser } from '../support/browser.js';
import { BOB_PASSWORD, decodeJwt, oauthError, RelyingParty, type SignedIn } from '../support/rp.js';
import { ALICE_PASSWORD, BOOTSTRAP_YAML, extraTenant, REDIRECT, type TestServer, WEB_SECRET } from '../support/server.js';
import { sha256 } from '../../src/infrastructure/crypto/hashing.js';
import { EVENT_STORE, type EventStore, StoreUnavailableError } from '../../src/infrastructure/event-store/event-store.port.js';
import { READ_STORE, type ReadStore } from '../../src/infrastructure/read-store/read-store.port.js';
import { PasswordQueue } from '../../src/infrastructure/crypto/password-queue.js';

let server: TestServer;
let rp: RelyingParty;
/** The usual bootstrap plus a tenant whose sign-ins count for two seconds, and one whose sessions idle out after two. */
const SESSION_MAX_AGE = 2;
const SESSION_IDLE_TIMEOUT = 2;
/** A redirect URI registered with a query that a form encoder would write otherwise. */
const QUERY_REDIRECT = 'https://rp.example/cb?x=1&y=a%20b&flag';
const BOOTSTRAP = `${BOOTSTRAP_YAML}${extraTenant('brief', { session_max_age: SESSION_MAX_AGE })}${extraTenant(
  'idle',
  { session_idle_timeout: SESSION_IDLE_TIMEOUT },
  `
      - client_id: third
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid"
        token_endpoint_auth_method: client_secret_post
      - client_id: query
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${QUERY_REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid"`,
)}
`;
// Every sign-in here comes from 127.0.0.1: the per-address limit would soon hold them all up.
const contract = endToEnd((s) => ({ server, rp } = s), BOOTSTRAP, { env: { SIGNIN_ADDRESS_FAILURES: '10000' } });
// A test that stops the server's clock lets it run again after, whatever happened.
afterEach(() => server.clock.release());

/** The events of `stream` the requests `ids` caused, in their order, once all are there (a failed sign-in is recorded once answered). */
async function recorded(stream: string, ids: string[]) {
  for (let i = 0; ; i++) {
    const events = (await server.app.get<EventStore>(EVENT_STORE).readStream(stream)).filter((e) => ids.includes(e.metadata.correlationId));
    if (events.length >= ids.length || i === 100) return events.sort((a, b) => ids.indexOf(a.metadata.correlationId) - ids.indexOf(b.metadata.correlationId));
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The error the client receives at its redirect URI, after oauth4webapi has checked `iss` and `state`. */
function clientError(res: Response, state: string | typeof oauth.expectNoState, clientId = 'web'): { error: string; params: URLSearchParams } {
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  expect(location.searchParams.get('iss')).toBe(rp.issuer);
  if (typeof state === 'string') expect(location.searchParams.get('state')).toBe(state);
  try {
    oauth.validateAuthResponse(rp.as, rp.client(clientId), location, state);
  } catch (e) {
    if (e instanceof oauth.AuthorizationResponseError) return { error: e.error, params: location.searchParams };
    throw e;
  }
  throw new Error(`expected an error response, got ${location.href}`);
}

/**
 * RFC 6819 §4.4.1.9: a page (login, consent, an error) is never shown inside another site's
 * frame, and its URL never travels on as a Referer.
 */
function expectNotFramable(res: Response): void {
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
}

/** A 400 HTML page shown to the user, never a redirect. */
async function expectErrorPage(res: Response, status = 400): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expectNotFramable(res);
  return res.text();
}

async function signedInBrowser(username = 'alice', password = ALICE_PASSWORD): Promise<Browser> {
  const browser = rp.browser();
  const s = await rp.signIn(browser, { username, password });
  expect(s.loginShown).toBe(true);
  rp.codeParams(s);
  return browser;
}

function withParam(url: string, name: string, value: string | undefined): string {
  const u = new URL(url);
  if (value === undefined) u.searchParams.delete(name);
  else u.searchParams.set(name, value);
  return u.href;
}

describe('requests that must not be sent back to the client', () => {
  it('shows a 400 page for an unknown client_id', async () => {
    const { url } = await rp.request({ clientId: 'nobody' });
    const html = await expectErrorPage(await rp.browser().get(url));
    expect(html).toContain('invalid_request');
    expect(html).not.toContain(`href="${REDIRECT}`);
  });

  it('shows a 400 page when client_id is missing', async () => {
    const { url } = await rp.request();
    await expectErrorPage(await rp.browser().get(withParam(url, 'client_id', undefined)));
  });

  it.each([
    ['another host', 'https://evil.example/cb'],
    ['another path on the registered host', 'http://127.0.0.1:9999/other'],
    ['a registered URI with a query added', `${REDIRECT}?x=1`],
    ['not a URI', 'not a uri'],
  ])('shows a 400 page for an unregistered redirect_uri (%s)', async (_, redirectUri) => {
    const { url } = await rp.request({ redirectUri });
    const html = await expectErrorPage(await rp.browser().get(url));
    expect(html).not.toContain('evil.example');
  });

  it('shows a 400 page for an OpenID Connect request without redirect_uri, even from a client with one registered (OpenID Connect Core §3.1.2.1)', async () => {
    const { url } = await rp.request({ scope: 'openid profile' });
    const html = await expectErrorPage(await rp.browser().get(withParam(url, 'redirect_uri', undefined)));
    expect(html).toContain('redirect_uri is required in an OpenID Connect request');
  });

  it('shows a 400 page when a parameter that says where the answer goes is repeated', async () => {
    const { url } = await rp.request();
    await expectErrorPage(await rp.browser().get(`${url}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`));
    await expectErrorPage(await rp.browser().get(`${url}&client_id=spa`));
    await expectErrorPage(await rp.browser().get(`${url}&response_mode=query&response_mode=form_post`));
  });

  it('shows a 400 page for a query or body that is not percent-encoded UTF-8: a state it cannot read, it cannot send back as sent', async () => {
    const withoutState = withParam((await rp.request()).url, 'state', undefined);
    for (const state of ['%zz', '%ff', 'caf%E9']) await expectErrorPage(await rp.browser().get(`${withoutState}&state=${state}`));
    const query = new URL(withoutState).search.slice(1);
    const post = (type: string, body: string) => contract.fetch(rp.as.authorization_endpoint!, { method: 'POST', headers: { 'content-type': type }, body });
    await expectErrorPage(await post('application/x-www-form-urlencoded', `${query}&state=%zz`));
    await expectErrorPage(await post('application/x-www-form-urlencoded; charset=ISO-8859-1', `${query}&state=caf%C3%A9`));
  });

  it('keeps the query of a registered redirect URI as written (RFC 6749 §3.1.2)', async () => {
    const url = new URL(`${server.issuer('idle')}/authorize`);
    const params = { response_type: 'code', client_id: 'query', redirect_uri: QUERY_REDIRECT, scope: 'openid', code_challenge: 'A'.repeat(43), code_challenge_method: 'S256', prompt: 'none', state: 'a b' };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const res = await contract.fetch(url.href, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location.startsWith(`${QUERY_REDIRECT}&error=login_required&`)).toBe(true);
    expect(new URL(location).searchParams.get('state')).toBe('a b');
  });

  it('sends invalid_request back to the client for any other repeated parameter (RFC 6749 §4.1.2.1), without a repeated state', async () => {
    const { url, state } = await rp.request();
    for (const extra of ['response_type=code', 'scope=openid', `code_challenge=${'A'.repeat(43)}`]) {
      const { error, params } = clientError(await rp.browser().get(`${url}&${extra}`), state);
      expect(error).toBe('invalid_request');
      expect(params.get('error_description')).toBe(`parameter ${extra.split('=')[0]} is repeated`);
    }
    const res = await rp.browser().get(`${url}&state=second`);
    expect(clientError(res, oauth.expectNoState).params.has('state')).toBe(false);
  });

  it('shows a 400 page when the POST body is not a form', async () => {
    const res = await contract.fetch(rp.as.authorization_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'code', client_id: 'web', redirect_uri: REDIRECT }),
    });
    await expectErrorPage(res);
  });

  it('shows an error page for a body the server cannot read: multipart, broken JSON (400), too large (413), compressed (415)', async () => {
    const bodies: Array<[Record<string, string>, string, number]> = [
      [{ 'content-type': 'multipart/form-data; boundary=x' }, '--x\r\nContent-Disposition: form-data; name="client_id"\r\n\r\nweb\r\n--x--\r\n', 400],
      [{ 'content-type': 'application/json' }, '{', 400],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, `client_id=web&x=${'a'.repeat(70_000)}`, 413],
      [{ 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'br' }, 'client_id=web', 415],
    ];
    for (const [headers, body, status] of bodies) await expectErrorPage(await contract.fetch(rp.as.authorization_endpoint!, { method: 'POST', headers, body }), status);
  });
});

describe('errors sent back to the client with state and iss', () => {
  it.each([
    ['code_challenge is missing', 'code_challenge', undefined, 'invalid_request'],
    ['code_challenge_method is unknown', 'code_challenge_method', 'S512', 'invalid_request'],
    ['the challenge is too short', 'code_challenge', 'abc', 'invalid_request'],
    ['the challenge has characters outside the unreserved set', 'code_challenge', `${'a'.repeat(42)}+/`, 'invalid_request'],
    ['the challenge is too long', 'code_challenge', 'a'.repeat(129), 'invalid_request'],
    ['an S256 challenge is not 43 characters (no SHA-256 in base64url is)', 'code_challenge', 'a'.repeat(50), 'invalid_request'],
    ['an S256 challenge has characters base64url does not use', 'code_challenge', `${'a'.repeat(42)}.`, 'invalid_request'],
    ['response_type is missing', 'response_type', undefined, 'invalid_request'],
    ['response_type=token (implicit)', 'response_type', 'token', 'unsupported_response_type'],
    ['response_type=code id_token (hybrid)', 'response_type', 'code id_token', 'unsupported_response_type'],
    ['no requested scope is registered for the client', 'scope', 'admin', 'invalid_scope'],
    ['registration metadata are sent (OpenID Connect Core §7.2.1)', 'registration', '{"logo_uri":"https://rp/logo.png"}', 'registration_not_supported'],
    ['prompt has an unknown value', 'prompt', 'select_account', 'invalid_request'],
    ['prompt=none is combined with login', 'prompt', 'none login', 'invalid_request'],
    ['max_age is negative', 'max_age', '-1', 'invalid_request'],
    ['response_mode is unknown', 'response_mode', 'fragment', 'invalid_request'],
    ['nonce is longer than 512 characters', 'nonce', 'n'.repeat(513), 'invalid_request'],
    ['login_hint is longer than 512 characters', 'login_hint', 'h'.repeat(513), 'invalid_request'],
  ])('%s', async (_, name, value, expected) => {
    const req = await rp.request();
    const res = await rp.browser().get(withParam(req.url, name, value));
    expect(clientError(res, req.state).error).toBe(expected);
  });

  it('refuses a state longer than 2048 characters, and does not send it back (the answer would be a URL that long)', async () => {
    const req = await rp.request();
    const refused = clientError(await rp.browser().get(withParam(req.url, 'state', 's'.repeat(2049))), oauth.expectNoState);
    expect(refused.error).toBe('invalid_request');
    expect(refused.params.get('error_description')).toBe('state must be at most 2048 characters');
  });

  it('keeps the longest accepted state, nonce and login_hint through the login page', async () => {
    const req = await rp.request();
    const url = withParam(withParam(withParam(req.url, 'state', 's'.repeat(2048)), 'nonce', 'n'.repeat(512)), 'login_hint', 'h'.repeat(512));
    const browser = rp.browser();
    const res = await browser.get(url);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${rp.issuer}/login\\?interaction=`));
    const login = await browser.follow(new URL(res.headers.get('location')!, rp.issuer).href, server.baseUrl);
    expect(login.status).toBe(200);
    expect(await login.text()).toContain(`value="${'h'.repeat(512)}"`);
  });

  it('sends no state back when none was sent', async () => {
    const req = await rp.request();
    const res = await rp.browser().get(withParam(withParam(req.url, 'state', undefined), 'response_type', 'token'));
    expect(clientError(res, oauth.expectNoState).error).toBe('unsupported_response_type');
  });

  it('answers prompt=none without a session with login_required', async () => {
    const req = await rp.request({ extra: { prompt: 'none' } });
    expect(clientError(await rp.browser().get(req.url), req.state).error).toBe('login_required');
  });

  it('answers prompt=none for a third-party client the user has not allowed with consent_required', async () => {
    const browser = await signedInBrowser('bob', BOB_PASSWORD);
    const req = await rp.request({ clientId: 'third', scope: 'openid email', extra: { prompt: 'none' } });
    expect(clientError(await browser.get(req.url), req.state, 'third').error).toBe('consent_required');
  });

  it('sends temporarily_unavailable back when the code cannot be recorded (a full disk, say), and the session goes on', async () => {
    const browser = await signedInBrowser();
    const req = await rp.request();
    const append = jest.spyOn(server.app.get<EventStore>(EVENT_STORE), 'append').mockRejectedValueOnce(new StoreUnavailableError('event store: database or disk is full (SQLITE_FULL)'));
    try {
      expect(clientError(await browser.get(req.url), req.state).error).toBe('temporarily_unavailable');
    } finally {
      append.mockRestore();
    }
    expect(rp.codeParams(await rp.signIn(browser, { extra: { prompt: 'none' } })).get('code')).toBeTruthy();
  });

  it('answers prompt=none with a session by issuing a code at once', async () => {
    const browser = await signedInBrowser();
    const s = await rp.signIn(browser, { extra: { prompt: 'none' } });
    expect(s.loginShown).toBe(false);
    expect(rp.codeParams(s).get('code')).toBeTruthy();
  });

  it("answers id_token_hint only with the session of the user it names (OpenID Connect Core §3.1.2.1)", async () => {
    const alice = await rp.tokens();
    const bob = await rp.tokens({ username: 'bob', password: BOB_PASSWORD });
    const browser = await signedInBrowser();
    const withHint = (idToken: string, extra: Record<string, string> = {}) => rp.signIn(browser, { extra: { id_token_hint: idToken, ...extra } });
    // Alice's own hint: a code at once, even with prompt=none.
    expect(rp.codeParams(await withHint(alice.id_token!, { prompt: 'none' })).get('code')).toBeTruthy();
    // Bob's hint in alice's browser: login_required with prompt=none, the login page without.
    const none = await withHint(bob.id_token!, { prompt: 'none' });
    expect(clientError(none.res, none.state).error).toBe('login_required');
    const req = await rp.request({ extra: { id_token_hint: bob.id_token! } });
    const page = await browser.follow(req.url, server.baseUrl);
    expect(await page.text()).toContain('name="password"');
    // Alice signing in again does not answer for bob.
    const form = Browser.form(await (await browser.follow(req.url, server.baseUrl)).text());
    const wrongUser = await browser.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD });
    expect(clientError(wrongUser, req.state).error).toBe('login_required');
    // A hint that is not one of our ID tokens (or is an access token) is refused.
    for (const hint of ['not-a-token', alice.access_token]) {
      const bad = await rp.signIn(rp.browser(), { extra: { id_token_hint: hint } });
      expect(clientError(bad.res, bad.state).error).toBe('invalid_request');
    }
  });

  it('ends the session a browser held when another user signs in in it: one user per browser', async () => {
    const browser = rp.browser();
    const alice = await rp.tokens({}, browser);
    const signedIn = await rp.signIn(browser, { username: 'bob', password: BOB_PASSWORD, extra: { prompt: 'login' } });
    expect(signedIn.loginShown).toBe(true);
    const bob = await rp.redeem('web', signedIn);
    // Alice's session, which no browser could reach any more, is over with all its tokens.
    expect(await rp.active(alice.access_token)).toBe(false);
    expect(await oauthError(rp.refresh('web', alice.refresh_token!))).toMatchObject({ error: 'invalid_grant' });
    expect(await rp.active(bob.access_token)).toBe(true);
    const aliceSid = decodeJwt(alice.id_token!).payload.sid as string;
    const ended = (await tokenHistory(server, { sessionId: aliceSid })).at(-1)!;
    const bobSub = decodeJwt(bob.id_token!).payload.sub as string;
    expect(ended).toMatchObject({ type: 'SessionRevoked', actor: `user:${bobSub}`, data: { reason: 'another_user_signed_in', grants: [expect.objectContaining({ clientId: 'web' })] } });
    // The same user signing in again keeps the session.
    const again = await rp.tokens({ username: 'bob', password: BOB_PASSWORD, extra: { prompt: 'login' } }, browser);
    expect(decodeJwt(again.id_token!).payload.sid).toBe(decodeJwt(bob.id_token!).payload.sid);
    expect(await rp.active(bob.access_token)).toBe(true);
  });

  it('issues a code to each of many parallel prompt=none requests in one browser session', async () => {
    const browser = await signedInBrowser();
    for (let round = 0; round < 3; round++) {
      const all = await Promise.all(Array.from({ length: 30 }, () => rp.signIn(browser, { extra: { prompt: 'none' } })));
      expect(all.map((s) => (s.callback?.searchParams.has('code') ? 'code' : s.res.status))).toEqual(Array(30).fill('code'));
    }
  });
});

describe('response_mode=form_post', () => {
  it('returns an auto-submitting form carrying code, state and iss to the redirect URI', async () => {
    const browser = await signedInBrowser();
    const req = await rp.request({ extra: { response_mode: 'form_post' } });
    const res = await browser.get(req.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    // A relying party may run this in a hidden iframe (silent renewal), so it may be framed;
    // its Referer is the origin alone, so that the POST keeps its Origin header.
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('referrer-policy')).toBe('strict-origin');
    const html = await res.text();
    expect(html).toMatch(/<form method="post" action="http:\/\/127\.0\.0\.1:9999\/cb">/);
    expect(html).toContain('<script src="assets/form-post.js"></script>');
    const { action, fields } = Browser.form(html);
    expect(action).toBe(REDIRECT);
    expect(Object.keys(fields).sort()).toEqual(['code', 'iss', 'state']);
    const params = oauth.validateAuthResponse(rp.as, rp.client('web'), new URLSearchParams(fields), req.state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      rp.as,
      rp.client('web'),
      await rp.redeemRequest('web', params, REDIRECT, req.verifier),
      { expectedNonce: req.nonce, requireIdToken: true },
    );
    expect(tokens.access_token).toBeTruthy();
  });

  it('posts errors the same way', async () => {
    const req = await rp.request({ scope: 'admin', extra: { response_mode: 'form_post' } });
    const res = await rp.browser().get(req.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-frame-options')).toBeNull();
    const { action, fields } = Browser.form(await res.text());
    expect(action).toBe(REDIRECT);
    expect(fields).toMatchObject({ error: 'invalid_scope', state: req.state, iss: rp.issuer });
  });
});

describe('scope', () => {
  it('leaves out the values the client is not registered for, and names what was granted (OpenID Connect Core §3.1.2.1, RFC 6749 §3.3)', async () => {
    const tokens = await rp.tokens({ scope: 'openid profile phone admin' });
    expect(tokens.scope).toBe('openid profile');
    expect(decodeJwt(tokens.access_token).payload.scope).toBe('openid profile');
    expect(tokens.id_token).toBeTruthy();
  });
});

describe('POST /authorize', () => {
  it('works like GET: to the login form without a session, then a code', async () => {
    const browser = rp.browser();
    const req = await rp.request();
    let res = await browser.post(rp.as.authorization_endpoint!, Object.fromEntries(new URL(req.url).searchParams));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${rp.issuer}/login\\?interaction=`));
    res = await browser.follow(new URL(res.headers.get('location')!, rp.issuer).href, server.baseUrl);
    const form = Browser.form(await res.text());
    res = await browser.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD });
    const s: SignedIn = { res, ...req, callback: new URL(res.headers.get('location')!), loginShown: true };
    const tokens = await rp.redeem('web', s);
    expect(tokens.id_token).toBeTruthy();
  });

  it('works like GET with a session, and sends errors back the same way', async () => {
    const browser = await signedInBrowser();
    const req = await rp.request();
    const ok = await browser.post(rp.as.authorization_endpoint!, Object.fromEntries(new URL(req.url).searchParams));
    const s: SignedIn = { res: ok, ...req, callback: new URL(ok.headers.get('location')!), loginShown: false };
    expect(rp.codeParams(s).get('code')).toBeTruthy();

    const bad = await rp.request({ scope: 'admin' });
    const res = await browser.post(rp.as.authorization_endpoint!, Object.fromEntries(new URL(bad.url).searchParams));
    expect(clientError(res, bad.state).error).toBe('invalid_scope');
  });

  it('treats a repeated body parameter as a repeated query parameter', async () => {
    const req = await rp.request();
    const post = (extra: string) =>
      contract.fetch(rp.as.authorization_endpoint!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `${new URL(req.url).searchParams.toString()}&${extra}`, redirect: 'manual' });
    expect(clientError(await post('scope=openid'), req.state).error).toBe('invalid_request');
    await expectErrorPage(await post('client_id=spa'));
  });
});

describe('consent for a third-party client', () => {
  it('shows the consent page; deny sends access_denied, allow sends a code and is remembered', async () => {
    const browser = rp.browser();
    const first = await rp.signIn(browser, { clientId: 'third', scope: 'openid email' });
    expect(first.loginShown).toBe(true);
    // After the login, the browser goes to the consent page (not to the client).
    expect(first.res.status).toBe(302);
    let res = await browser.follow(new URL(first.res.headers.get('location')!, rp.issuer).href, server.baseUrl);
    expect(res.status).toBe(200);
    expectNotFramable(res);
    let html = await res.text();
    expect(html).toContain('Third Party App');
    expect(html).toContain('<li>email</li>');
    let form = Browser.form(html);
    expect(form.action).toBe(`${rp.issuer}/consent`);
    res = await browser.post(form.action, { ...form.fields, decision: 'deny' });
    expect(clientError(res, first.state, 'third').error).toBe('access_denied');
    // Denied is spent: the same form cannot then be posted as allowed.
    expect((await browser.post(form.action, { ...form.fields, decision: 'allow' })).status).toBe(400);

    // The user is signed in now: a new request goes straight to the consent page.
    const second = await rp.request({ clientId: 'third', scope: 'openid email' });
    res = await browser.follow(second.url, server.baseUrl);
    html = await res.text();
    expect(html).toContain('Allow access?');
    form = Browser.form(html);
    res = await browser.post(form.action, { ...form.fields, decision: 'allow' });
    const allowed: SignedIn = { res, ...second, callback: new URL(res.headers.get('location')!), loginShown: false };
    const tokens = await rp.redeem('third', allowed);
    expect(decodeJwt(tokens.access_token).payload).toMatchObject({ client_id: 'third', scope: 'openid email' });
    // The consent is part of the session's history.
    const sid = decodeJwt(tokens.id_token!).payload.sid as string;
    const history = await tokenHistory(server, { sessionId: sid });
    expect(history.filter((h) => h.type === 'ConsentGranted').map((h) => h.clientId)).toEqual(['third']);
    // So is the denial before it.
    expect(history.filter((h) => h.type === 'ConsentDenied').map((h) => [h.clientId, h.data.scope])).toEqual([['third', ['openid', 'email']]]);

    // Remembered: neither page again, even with prompt=none.
    const third = await rp.signIn(browser, { clientId: 'third', scope: 'openid email', extra: { prompt: 'none' } });
    expect(third.loginShown).toBe(false);
    expect(rp.codeParams(third, 'third').get('code')).toBeTruthy();
    const fourth = await rp.signIn(browser, { clientId: 'third', scope: 'openid' });
    expect(rp.codeParams(fourth, 'third').get('code')).toBeTruthy();
  });

  it('sends invalid_request back for a decision that is neither allow nor deny, and records none', async () => {
    const browser = await signedInBrowser();
    const req = await rp.request({ clientId: 'third', scope: 'openid email', extra: { prompt: 'consent' } });
    const form = Browser.form(await (await browser.follow(req.url, server.baseUrl)).text());
    const answer = await browser.post(form.action, { ...form.fields, decision: 'maybe' });
    expect(clientError(answer, req.state, 'third').error).toBe('invalid_request');
    const id = answer.headers.get('x-request-id');
    expect((await tokenHistory(server, { clientId: 'third' })).filter((h) => h.correlationId === id)).toEqual([]);
  });

  it('refuses the consent form from a browser without the session', async () => {
    const browser = rp.browser();
    const s = await rp.signIn(browser, { clientId: 'third', scope: 'openid email', username: 'bob', password: BOB_PASSWORD });
    const consentUrl = new URL(s.res.headers.get('location')!, rp.issuer).href;
    const stranger = rp.browser();
    expect((await stranger.get(consentUrl)).status).toBe(400);
    const form = Browser.form(await (await browser.get(consentUrl)).text());
    const res = await stranger.post(form.action, { ...form.fields, decision: 'allow' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });
});

/** Submits the sign-in form of `url` twice at once as alice; both are answered 302. The `sid=...` each answer sets. */
async function signInTwiceAtOnce(browser: Browser, url: string): Promise<string[]> {
  const form = Browser.form(await (await browser.follow(url, server.baseUrl)).text());
  const answers = await Promise.all([1, 2].map(() => browser.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD })));
  expect(answers.map((r) => r.status)).toEqual([302, 302]);
  return answers.map((r) => r.headers.getSetCookie().find((c) => c.startsWith('sid='))!.split(';')[0]);
}

/** Each of these session cookies alone lets a prompt=none request through. */
async function expectEachOpensTheSession(sids: string[]): Promise<void> {
  for (const sid of sids) {
    const sso = await rp.request({ extra: { prompt: 'none' } });
    const res = await contract.fetch(sso.url, { headers: { cookie: sid }, redirect: 'manual' });
    expect(new URL(res.headers.get('location')!).searchParams.get('code')).toBeTruthy();
  }
}

describe('re-authentication', () => {
  it('prompt=login shows the login form again although the browser has a session', async () => {
    const browser = rp.browser();
    const first = await rp.tokens({}, browser);
    const authTime = decodeJwt(first.id_token!).payload.auth_time as number;
    const oldCookie = browser.cookie('sid')!;
    const s = await rp.signIn(browser, { extra: { prompt: 'login' } });
    expect(s.loginShown).toBe(true);
    const tokens = await rp.redeem('web', s);
    expect(decodeJwt(tokens.id_token!).payload.auth_time).toBeGreaterThanOrEqual(authTime);
    expect(decodeJwt(tokens.id_token!).payload.sid).toBe(decodeJwt(first.id_token!).payload.sid);
    // The same session under a new cookie: a copy of the old one gains nothing from the new sign-in.
    expect(browser.cookie('sid')).not.toBe(oldCookie);
    const withOld = await rp.request({ extra: { prompt: 'none' } });
    const res = await contract.fetch(withOld.url, { headers: { cookie: `sid=${oldCookie}` }, redirect: 'manual' });
    expect(clientError(res, withOld.state).error).toBe('login_required');
    expect(rp.codeParams(await rp.signIn(browser, { extra: { prompt: 'none' } })).get('code')).toBeTruthy();
  });

  it("keeps the first grant's auth_time in the ID tokens of its refreshes after a later sign-in (OpenID Connect Core §12.2)", async () => {
    const browser = rp.browser();
    const first = await rp.tokens({}, browser);
    const authTime = decodeJwt(first.id_token!).payload.auth_time as number;
    server.clock.advance(1100);
    const again = await rp.redeem('web', await rp.signIn(browser, { extra: { prompt: 'login' } }));
    expect(decodeJwt(again.id_token!).payload.auth_time).toBeGreaterThan(authTime);
    expect(decodeJwt((await rp.refresh('web', first.refresh_token!)).id_token!).payload.auth_time).toBe(authTime);
  });

  it('gives each of a sign-in form submitted twice at once a cookie that works, whichever answer the browser keeps', async () => {
    const browser = rp.browser();
    await rp.tokens({}, browser);
    const req = await rp.request({ extra: { prompt: 'login' } });
    const sids = await signInTwiceAtOnce(browser, req.url);
    // A browser that double-clicks drops one answer; the one it keeps must open the session.
    expect(new Set(sids).size).toBe(2);
    await expectEachOpensTheSession(sids);
  });

  it('signs a new browser in to one session when its sign-in form is submitted twice at once', async () => {
    const browser = rp.browser();
    const req = await rp.request();
    const sids = await signInTwiceAtOnce(browser, req.url);
    // Two cookies of one session (its id leads the cookie's value), each of which opens it.
    expect(new Set(sids.map((sid) => sid.slice(0, 'sid='.length + 22))).size).toBe(1);
    expect(new Set(sids).size).toBe(2);
    await expectEachOpensTheSession(sids);
  });

  it('starts a new session when the sign-in form is posted again after the session it started has ended', async () => {
    // On the consent page (the request still pending), back to the sign-in form: as bob (which
    // ends alice's session), then as alice again.
    const browser = rp.browser();
    const req = await rp.request({ clientId: 'third', scope: 'openid email', extra: { prompt: 'consent' } });
    const form = Browser.form(await (await browser.follow(req.url, server.baseUrl)).text());
    const signIn = (username: string, password: string) => browser.post(form.action, { ...form.fields, username, password });
    const first = await signIn('alice', ALICE_PASSWORD);
    expect(first.status).toBe(302);
    const aliceSession = browser.cookie('sid')!.slice(0, 22);
    expect((await signIn('bob', BOB_PASSWORD)).status).toBe(302);
    const again = await signIn('alice', ALICE_PASSWORD);
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get('location')!, rp.issuer).pathname).toBe(new URL(first.headers.get('location')!, rp.issuer).pathname);
    expect(browser.cookie('sid')!.slice(0, 22)).not.toBe(aliceSession);
  });

  it("ends the previous user's session when two users sign in at once in one browser", async () => {
    const browser = rp.browser();
    const alice = await rp.tokens({}, browser);
    const forms = [] as Array<{ action: string; fields: Record<string, string> }>;
    for (const _ of [1, 2]) forms.push(Browser.form(await (await browser.follow((await rp.request({ extra: { prompt: 'login' } })).url, server.baseUrl)).text()));
    await Promise.all([
      browser.post(forms[0].action, { ...forms[0].fields, username: 'alice', password: ALICE_PASSWORD }),
      browser.post(forms[1].action, { ...forms[1].fields, username: 'bob', password: BOB_PASSWORD }),
    ]);
    // Whichever came first, alice's session from before is over.
    expect(await oauthError(rp.refresh('web', alice.refresh_token!))).toMatchObject({ error: 'invalid_grant' });
  });

  it('max_age=0 shows the login form again although the browser has a session', async () => {
    const browser = await signedInBrowser();
    const s = await rp.signIn(browser, { extra: { max_age: '0' } });
    expect(s.loginShown).toBe(true);
    expect(rp.codeParams(s).get('code')).toBeTruthy();
  });

  it('a generous max_age does not ask again', async () => {
    const browser = await signedInBrowser();
    const s = await rp.signIn(browser, { extra: { max_age: '3600' } });
    expect(s.loginShown).toBe(false);
    expect(rp.codeParams(s).get('code')).toBeTruthy();
  });

  it("asks for the password again once the tenant's session_max_age has passed since the sign-in, in the same session; its tokens live on", async () => {
    const brief = await RelyingParty.discover(server, contract, 'brief');
    const browser = brief.browser();
    server.clock.freeze();
    const first = await brief.signIn(browser);
    expect(first.loginShown).toBe(true);
    const tokens = await brief.redeem('web', first);
    expect(brief.codeParams(await brief.signIn(browser, { extra: { prompt: 'none' } })).get('code')).toBeTruthy();
    // Times are whole seconds: past SESSION_MAX_AGE + 1 s, the sign-in is older than the limit.
    server.clock.advance((SESSION_MAX_AGE + 1) * 1000 + 100);
    const none = await brief.signIn(browser, { extra: { prompt: 'none' } });
    expect(none.callback?.searchParams.get('error')).toBe('login_required');
    const again = await brief.signIn(browser);
    expect(again.loginShown).toBe(true);
    const renewed = await brief.redeem('web', again);
    expect(decodeJwt(renewed.id_token!).payload.sid).toBe(decodeJwt(tokens.id_token!).payload.sid);
    expect((await brief.refresh('web', tokens.refresh_token!)).access_token).toBeTruthy();
  });

  it("asks for the password again once a session has gone unused for the tenant's session_idle_timeout; each code issued is a use", async () => {
    const idle = await RelyingParty.discover(server, contract, 'idle');
    const browser = idle.browser();
    const silent = () => idle.signIn(browser, { scope: 'openid', extra: { prompt: 'none' } });
    server.clock.freeze();
    expect((await idle.signIn(browser, { scope: 'openid' })).loginShown).toBe(true);
    // Used every 1.6 s, the session lives on past SESSION_IDLE_TIMEOUT + 1 s after the sign-in.
    for (let i = 0; i < 2; i++) {
      server.clock.advance(1600);
      expect(idle.codeParams(await silent()).get('code')).toBeTruthy();
    }
    server.clock.advance((SESSION_IDLE_TIMEOUT + 1) * 1000 + 100);
    expect((await silent()).callback?.searchParams.get('error')).toBe('login_required');
    // Nor does the consent page take the idle session: a consent posted with the interaction of
    // a request that was sent to sign in is refused.
    const toThird = await browser.follow((await idle.request({ clientId: 'third', scope: 'openid' })).url, server.baseUrl);
    const { fields } = Browser.form(await toThird.text());
    expect(fields.interaction).toBeTruthy();
    expect((await browser.post(`${server.issuer('idle')}/consent`, { interaction: fields.interaction, decision: 'allow' })).status).toBe(400);
    expect((await idle.signIn(browser, { scope: 'openid' })).loginShown).toBe(true);
  });
});

describe('the login form', () => {
  async function loginPage(browser: Browser): Promise<{ action: string; fields: Record<string, string> }> {
    const req = await rp.request();
    const res = await browser.follow(req.url, server.baseUrl);
    expect(res.status).toBe(200);
    expectNotFramable(res);
    return Browser.form(await res.text());
  }

  function errorText(html: string): string {
    return /<p class="error"[^>]*>([^<]*)<\/p>/.exec(html)?.[1] ?? '';
  }

  it('answers a wrong password and an unknown user with the same 400 page that does not say which part was wrong', async () => {
    const browser = rp.browser();
    const form = await loginPage(browser);
    const wrongPassword = await browser.post(form.action, { ...form.fields, username: 'alice', password: 'not the password' });
    const unknownUser = await browser.post(form.action, { ...form.fields, username: 'mallory', password: ALICE_PASSWORD });
    expect(wrongPassword.status).toBe(400);
    expect(unknownUser.status).toBe(400);
    const [a, b] = [await wrongPassword.text(), await unknownUser.text()];
    expect(errorText(a)).toBeTruthy();
    expect(errorText(a)).toBe(errorText(b));
    expect(a.replace(/value="alice"/, 'value="mallory"')).toBe(b);
    for (const html of [a, b]) expect(html.toLowerCase()).not.toMatch(/unknown user|no such user|incorrect password|wrong password|password is|user does not exist/);
    expect(browser.cookie('sid')).toBeUndefined();
    // The same form still works afterwards.
    const ok = await browser.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD });
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:9999\/cb\?code=/);
  });

  it('records an unknown username only as a keyed hash, the same one for the same name', async () => {
    const browser = rp.browser();
    const form = await loginPage(browser);
    // A password typed into the username field must not be recoverable from the log by hashing guesses.
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await browser.post(form.action, { ...form.fields, username: ALICE_PASSWORD, password: 'x' });
      expect(res.status).toBe(400);
      ids.push(res.headers.get('x-request-id')!);
    }
    const failures = await recorded('loginfailures-acme', ids);
    const [first, second] = failures.map((e) => (e.data as { usernameHash: string }).usernameHash);
    expect(first).toMatch(/^hmac-sha256:[A-Za-z0-9_-]{43}$/);
    expect(second).toBe(first);
    expect(JSON.stringify(failures)).not.toContain(sha256(ALICE_PASSWORD).slice(7));
  });

  it('records at most 60 made-up usernames a minute on a tenant, so that they cannot flood the log', async () => {
    // Tenant other has no users, and no other test signs in there: its minute starts here.
    const strict = await RelyingParty.discover(server, contract, 'other');
    const browser = strict.browser();
    const form = Browser.form(await (await browser.follow((await strict.request({ scope: 'openid' })).url, server.baseUrl)).text());
    const ids: string[] = [];
    for (let batch = 0; batch < 7; batch++) {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => browser.post(form.action, { ...form.fields, username: `nobody-${batch}-${i}`, password: 'x' })));
      for (const res of answers) {
        expect(res.status).toBe(400);
        ids.push(res.headers.get('x-request-id')!);
      }
    }
    // The first 60 are recorded (once answered), the other 10 are not.
    expect(await recorded('loginfailures-other', ids.slice(0, 60))).toHaveLength(60);
    await new Promise((r) => setTimeout(r, 200));
    expect((await server.app.get<EventStore>(EVENT_STORE).readStream('loginfailures-other')).filter((e) => ids.includes(e.metadata.correlationId))).toHaveLength(60);
  });

  it("gives every request an id, which the events it caused carry as their correlation id", async () => {
    const signedIn = await rp.signIn(rp.browser());
    expect(signedIn.loginShown).toBe(true);
    const loginRequest = signedIn.res.headers.get('x-request-id')!;
    expect(loginRequest).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const code = rp.codeParams(signedIn).get('code')!;
    const redeemed = await rp.redeemRequest('web', rp.codeParams(signedIn), signedIn.redirectUri, signedIn.verifier);
    const tokenRequest = redeemed.headers.get('x-request-id')!;
    expect(tokenRequest).not.toBe(loginRequest);
    const events = await sessionEvents(server, code);
    expect(events.map((e) => [e.type, e.metadata.correlationId])).toEqual([
      ['SessionStarted', loginRequest],
      ['UserAuthenticated', loginRequest],
      ['CodeIssued', loginRequest],
      ['CodeRedeemed', tokenRequest],
      ['AccessTokenIssued', tokenRequest],
      ['RefreshTokenIssued', tokenRequest],
    ]);
  });

  it("records a wrong password as an anonymous attempt on the user, from the client's sign-in page", async () => {
    const browser = rp.browser();
    const form = await loginPage(browser);
    const res = await browser.post(form.action, { ...form.fields, username: 'bob', password: 'not it' });
    expect(res.status).toBe(400);
    const bob = (await server.app.get<ReadStore>(READ_STORE).find<{ userId: string }>('users', { tenantId: 'acme', username: 'bob' }))[0];
    const [failed] = await recorded(`user-acme.${bob.userId}`, [res.headers.get('x-request-id')!]);
    expect(failed).toMatchObject({ type: 'LoginFailed', data: { reason: 'bad_password', userId: bob.userId, clientId: 'web' }, metadata: { actor: 'anonymous', sourceIp: '127.0.0.1', userAgent: Browser.USER_AGENT } });
  });

  it('slows password guessing: after five failures for a username, each next attempt waits (429, Retry-After), known user or not', async () => {
    // A success clears what earlier tests left of bob's count.
    await rp.tokens({ username: 'bob', password: BOB_PASSWORD });
    // Time moves only when the test says so: the waits below cannot pass while the machine is slow.
    server.clock.freeze();
    const browser = rp.browser();
    const form = await loginPage(browser);
    const post = (username: string, password: string) => browser.post(form.action, { ...form.fields, username, password });
    for (let i = 0; i < 5; i++) expect((await post('bob', 'guess')).status).toBe(400);
    // Even the right password waits: it is not even checked.
    const held = await post('bob', BOB_PASSWORD);
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toBe('1');
    expectNotFramable(held);
    const page = await held.text();
    expect(errorText(page)).toMatch(/^Too many failed sign-ins with this username\. Try again in 1 s\.$/);
    expect(page).toContain('name="password"');
    // A username that does not exist is held up alike, so the wait tells nothing; and parallel
    // guesses take turns, so they cannot all slip in before the first one fails.
    const guesses = await Promise.all(Array.from({ length: 8 }, () => post('nobody-here', 'guess')));
    expect(guesses.map((r) => r.status).sort()).toEqual([400, 400, 400, 400, 400, 429, 429, 429]);
    // Once the wait is over the right password signs in, and the count starts again; parallel
    // sign-ins with the right password all pass (attempts take turns, none counts as failed early).
    server.clock.advance(1000);
    expect((await post('bob', BOB_PASSWORD)).status).toBe(302);
    const parallel = await Promise.all(Array.from({ length: 8 }, () => rp.signIn(rp.browser(), { username: 'bob', password: BOB_PASSWORD })));
    expect(parallel.map((s) => s.res.status)).toEqual(Array(8).fill(302));
    const other = rp.browser();
    const again = await loginPage(other);
    expect((await other.post(again.action, { ...again.fields, username: 'bob', password: 'guess' })).status).toBe(400);
    server.clock.release();
  });

  it("does not hold up a browser that signed in as the username before (device cookie), while others' guesses wait", async () => {
    // bob's own browser has signed in as bob before; it carries a device cookie for bob.
    server.clock.freeze();
    const own = rp.browser();
    await rp.tokens({ username: 'bob', password: BOB_PASSWORD }, own);
    expect(own.cookie('device')).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    // Someone else guesses bob's password until held up.
    const other = rp.browser();
    const form = await loginPage(other);
    let held = 0;
    for (let i = 0; i < 7; i++) if ((await other.post(form.action, { ...form.fields, username: 'bob', password: 'guess' })).status === 429) held++;
    expect(held).toBeGreaterThan(0);
    // bob's browser still signs in at once; for another username its device cookie counts for nothing.
    const mine = await rp.signIn(own, { username: 'BOB', password: BOB_PASSWORD, extra: { prompt: 'login' } });
    expect(mine.loginShown).toBe(true);
    expect(mine.res.status).toBe(302);
    const alices = rp.browser();
    await rp.tokens({ username: 'alice', password: ALICE_PASSWORD }, alices);
    const theirs = await rp.signIn(alices, { username: 'bob', password: BOB_PASSWORD, extra: { prompt: 'login' } });
    expect(theirs.res.status).toBe(429);
    // A device that fails five times itself is trusted no more: it then waits like anyone (OWASP).
    for (let i = 0; i < 5; i++) expect((await rp.signIn(own, { username: 'bob', password: 'guess', extra: { prompt: 'login' } })).res.status).toBe(400);
    expect((await rp.signIn(own, { username: 'bob', password: BOB_PASSWORD, extra: { prompt: 'login' } })).res.status).toBe(429);
    // Once the wait is over, bob signing in elsewhere clears the count for the tests after this one.
    server.clock.advance(16 * 60_000);
    await rp.tokens({ username: 'bob', password: BOB_PASSWORD });
    server.clock.release();
  });

  it('checks passwords a few at a time: beyond the queue, a sign-in gets 429 with Retry-After at once, and nothing is counted', async () => {
    const queue = server.app.get(PasswordQueue);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // Every slot and every place in the queue taken by a hash that ends when the test says so.
    const taken = Array.from({ length: queue.concurrency + queue.waiting }, () => queue.run(() => held));
    const browser = rp.browser();
    const form = await loginPage(browser);
    const busy = await browser.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD });
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(errorText(await busy.text())).toMatch(/^Too many sign-ins at once\. Try again in [0-9]+ s\.$/);
    release();
    await Promise.all(taken);
    expect((await browser.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD })).status).toBe(302);
  });

  it('keeps sign-ins started in two tabs of one browser both valid', async () => {
    const browser = rp.browser();
    const [first, second] = [await loginPage(browser), await loginPage(browser)];
    const one = await browser.post(first.action, { ...first.fields, username: 'alice', password: ALICE_PASSWORD });
    expect(one.status).toBe(302);
    const two = await browser.post(second.action, { ...second.fields, username: 'alice', password: ALICE_PASSWORD });
    expect(two.status).toBe(302);
    expect(new URL(two.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    // Each request's cookie went with its completion: posting a finished form again is refused.
    expect((await browser.post(first.action, { ...first.fields, username: 'alice', password: ALICE_PASSWORD })).status).toBe(400);
  });

  it('refuses an interaction link replayed in another browser with a 400 page', async () => {
    const browser = rp.browser();
    const req = await rp.request();
    const toLogin = await browser.get(req.url);
    const loginUrl = new URL(toLogin.headers.get('location')!, rp.issuer).href;
    const form = Browser.form(await (await browser.get(loginUrl)).text());

    const other = rp.browser();
    const shown = await other.get(loginUrl);
    expect(shown.status).toBe(400);
    expect(await shown.text()).not.toContain('name="password"');
    const posted = await other.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD });
    expect(posted.status).toBe(400);
    expect(posted.headers.get('location')).toBeNull();
    expect(other.cookie('sid')).toBeUndefined();
  });

  it('refuses a forged interaction value with a 400 page', async () => {
    const res = await rp.browser().get(`${rp.issuer}/login?interaction=forged`);
    expect(res.status).toBe(400);
  });
});

describe('loopback redirect URIs (RFC 8252 §7.3)', () => {
  it('accepts the registered loopback URI on another port and binds the code to it', async () => {
    const redirectUri = 'http://127.0.0.1:45678/cb';
    const browser = rp.browser();
    const s = await rp.signIn(browser, { redirectUri });
    expect(s.callback!.origin).toBe('http://127.0.0.1:45678');
    const params = rp.codeParams(s);
    const wrong = await rp.redeemRequest('web', params, REDIRECT, s.verifier);
    expect(((await wrong.clone().json()) as { error: string }).error).toBe('invalid_grant');
    const tokens = await rp.redeem('web', s);
    expect(tokens.access_token).toBeTruthy();
  });

  it('still refuses another path on the loopback host', async () => {
    const { url } = await rp.request({ redirectUri: 'http://127.0.0.1:45678/elsewhere' });
    await expectErrorPage(await rp.browser().get(url));
  });
});
