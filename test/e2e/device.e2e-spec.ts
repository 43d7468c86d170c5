import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { adminCall, adminClients, adminToken } from '../support/admin.js';
import { Browser } from '../support/browser.js';
import { endToEnd } from '../support/suite.js';
import { ALICE_PASSWORD, BOOTSTRAP_YAML, type TestServer, WEB_SECRET } from '../support/server.js';
import { decodeJwt, oauthError, type RelyingParty } from '../support/rp.js';
import { EVENT_STORE, type EventStore } from '../../src/infrastructure/event-store/event-store.port.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** Wrong user codes one address may type in a window, low here so the test reaches the limit. */
const ADDRESS_FAILURES = 3;

let server: TestServer;
let rp: RelyingParty;
/** A public device client (a TV), a confidential one, and the admin clients, of acme. */
const BOOTSTRAP = BOOTSTRAP_YAML.replace(
  '      - client_id: service',
  `${adminClients().slice(1)}
      - client_id: tv
        client_name: Living Room TV
        grant_types: ["${DEVICE_GRANT}", refresh_token]
        scope: "openid profile offline_access"
        token_endpoint_auth_method: none
      - client_id: console
        client_secret: "${WEB_SECRET}"
        grant_types: ["${DEVICE_GRANT}"]
        scope: "openid profile"
      - client_id: service`,
);
const contract = endToEnd((s) => {
  ({ server, rp } = s);
  rp.auths.set('tv', () => oauth.None());
  rp.auths.set('console', () => oauth.ClientSecretBasic(WEB_SECRET));
}, BOOTSTRAP, { env: { SIGNIN_ADDRESS_FAILURES: String(ADDRESS_FAILURES) } });
afterEach(() => server.clock.release());

/** Starts a device authorization through oauth4webapi; its answer, checked by the library. */
async function start(clientId = 'tv', scope = 'openid profile offline_access') {
  const res = await oauth.deviceAuthorizationRequest(rp.as, rp.client(clientId), rp.auth(clientId), { scope }, rp.options);
  return oauth.processDeviceAuthorizationResponse(rp.as, rp.client(clientId), res);
}

/** One poll of the token endpoint, as the device makes it. */
async function poll(deviceCode: string, clientId = 'tv') {
  const res = await oauth.deviceCodeGrantRequest(rp.as, rp.client(clientId), rp.auth(clientId), deviceCode, rp.options);
  return oauth.processDeviceCodeResponse(rp.as, rp.client(clientId), res);
}

/** The user's side: types `typed` on the user-code page, signs in if asked, and answers `decision`; the last page. */
async function answer(typed: string, decision: 'allow' | 'deny', browser = rp.browser()): Promise<Response> {
  const page = await browser.get(rp.url('/device'));
  expect(page.status).toBe(200);
  const form = Browser.form(await page.text());
  let res = await browser.post(form.action, { ...form.fields, user_code: typed });
  if (res.status === 302) {
    // Not signed in: the sign-in page, then back to the user-code page.
    res = await browser.follow(new URL(res.headers.get('location')!, rp.issuer).href, server.baseUrl);
    const login = Browser.form(await res.text());
    res = await browser.post(login.action, { ...login.fields, username: 'alice', password: ALICE_PASSWORD });
    expect(res.status).toBe(302);
    res = await browser.follow(new URL(res.headers.get('location')!, rp.issuer).href, server.baseUrl);
  }
  expect(res.status).toBe(200);
  const confirm = await res.text();
  expect(confirm).toContain('Living Room TV');
  expect(confirm).toContain('offline_access');
  const choice = Browser.form(confirm);
  return browser.post(choice.action, { ...choice.fields, decision });
}

describe('device authorization grant (RFC 8628)', () => {
  it('is announced in discovery', async () => {
    expect(rp.as.device_authorization_endpoint).toBe(rp.url('/device_authorization'));
    expect(rp.as.grant_types_supported).toContain(DEVICE_GRANT);
  });

  it('starts through openid-client, waits for the user, slows a device that polls too fast, then gives the tokens once', async () => {
    server.clock.freeze();
    // Started a minute back, so that the ID token issued after the polls below is not from the future for the client's checks.
    server.clock.advance(-60_000);
    const config = await oidc.discovery(new URL(rp.issuer), 'tv', {}, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    config[oidc.customFetch] = contract.fetch;
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile offline_access' });
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri).toBe(rp.url('/device'));
    expect(started.verification_uri_complete).toBe(`${rp.url('/device')}?user_code=${started.user_code}`);
    expect(started).toMatchObject({ expires_in: 600, interval: 5 });

    expect(await oauthError(poll(started.device_code))).toMatchObject({ status: 400, error: 'authorization_pending' });
    // §3.5: sooner than the interval: slow_down, and the interval grows by 5 s.
    expect(await oauthError(poll(started.device_code))).toMatchObject({ status: 400, error: 'slow_down' });
    server.clock.advance(5_000);
    expect(await oauthError(poll(started.device_code))).toMatchObject({ error: 'slow_down' });
    server.clock.advance(15_000);
    expect(await oauthError(poll(started.device_code))).toMatchObject({ error: 'authorization_pending' });

    // Typed once, in lower case with a space for the dash.
    const done = await answer(started.user_code.toLowerCase().replace('-', ' '), 'allow');
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Device connected');

    server.clock.advance(20_000);
    const tokens = await poll(started.device_code);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.refresh_token).toBeDefined();
    expect(tokens.scope).toBe('openid profile offline_access');
    const claims = decodeJwt(tokens.id_token!).payload;
    expect(claims).toMatchObject({ aud: 'tv', iss: rp.issuer });
    const userinfo = await fetch(rp.url('/userinfo'), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toMatchObject({ sub: claims.sub, name: 'Alice Liddell' });

    // The grant lives in alice's session, as the code flow's does (audit, back-channel logout).
    const store = server.app.get<EventStore>(EVENT_STORE);
    const sid = claims.sid as string;
    const types = (await store.readStream(`session-acme.${sid}`)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['SessionStarted', 'CodeIssued', 'CodeRedeemed', 'AccessTokenIssued', 'RefreshTokenIssued']));
    // Nothing of the device code is kept in usable form.
    expect(JSON.stringify(await store.readAll({ maxCount: 100_000 }))).not.toContain(started.device_code.split('.')[1]);

    // Single use: a second redemption is refused, and the tokens of the first are revoked.
    server.clock.advance(20_000);
    expect(await oauthError(poll(started.device_code))).toMatchObject({ status: 400, error: 'invalid_grant' });
    const after = await fetch(rp.url('/userinfo'), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(after.status).toBe(401);
  });

  it('tells the device the user denied', async () => {
    const started = await start();
    const done = await answer(started.user_code, 'deny');
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Device not connected');
    expect(await oauthError(poll(started.device_code))).toMatchObject({ status: 400, error: 'access_denied' });
  });

  it('expires the device code after expires_in', async () => {
    server.clock.freeze();
    const started = await start('console', 'openid');
    server.clock.advance(600_000);
    expect(await oauthError(poll(started.device_code, 'console'))).toMatchObject({ status: 400, error: 'expired_token' });
    // The user can no longer answer either.
    const browser = rp.browser();
    const form = Browser.form(await (await browser.get(rp.url('/device'))).text());
    const res = await browser.post(form.action, { ...form.fields, user_code: started.user_code });
    expect(res.status).toBe(400);
  });

  it('expires an allowed device code the device did not redeem in time', async () => {
    server.clock.freeze();
    const started = await start();
    expect((await answer(started.user_code, 'allow')).status).toBe(200);
    server.clock.advance(600_000);
    expect(await oauthError(poll(started.device_code))).toMatchObject({ status: 400, error: 'expired_token' });
  });

  it('refuses a client not registered for the grant, and a device code of another client', async () => {
    const res = await oauth.deviceAuthorizationRequest(rp.as, rp.client('web'), rp.auth('web'), { scope: 'openid' }, rp.options);
    expect(await oauthError(oauth.processDeviceAuthorizationResponse(rp.as, rp.client('web'), res))).toMatchObject({ status: 400, error: 'unauthorized_client' });
    const tv = await start();
    expect(await oauthError(poll(tv.device_code, 'console'))).toMatchObject({ status: 400, error: 'invalid_grant' });
    // Another code: its last character changed (to one it is not).
    const other = `${tv.device_code.slice(0, -1)}${tv.device_code.endsWith('A') ? 'B' : 'A'}`;
    expect(await oauthError(poll(other))).toMatchObject({ status: 400, error: 'invalid_grant' });
  });

  it('takes a client registered for the grant through the admin API', async () => {
    const token = await adminToken(server, 'acme');
    const created = await adminCall(server, contract, 'POST', '/acme/configuration/clients', token, { client_id: 'settop', grant_types: [DEVICE_GRANT], token_endpoint_auth_method: 'none', scope: 'openid' });
    expect(created.status).toBe(201);
    expect(created.body.grant_types).toEqual([DEVICE_GRANT]);
    rp.auths.set('settop', () => oauth.None());
    const started = await start('settop', 'openid');
    expect(await oauthError(poll(started.device_code, 'settop'))).toMatchObject({ error: 'authorization_pending' });
    const refused = await adminCall(server, contract, 'POST', '/acme/configuration/clients', token, { client_id: 'bad', grant_types: ['urn:ietf:params:oauth:grant-type:other'], token_endpoint_auth_method: 'none' });
    expect(refused.status).toBe(400);
  });

  it('honours the user-code form only in the browser it was shown to', async () => {
    const started = await start();
    const form = Browser.form(await (await rp.browser().get(rp.url('/device'))).text());
    // Another browser (no interaction cookie) posting the same form: a cross-site request.
    const res = await rp.browser().post(form.action, { ...form.fields, user_code: started.user_code });
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('Living Room TV');
  });

  it('throttles wrong user codes per address, then lets codes through again after the window', async () => {
    server.clock.freeze();
    // A window of its own: the wrong codes of the tests before are forgotten.
    server.clock.advance(900_000);
    const browser = rp.browser();
    const form = Browser.form(await (await browser.get(rp.url('/device'))).text());
    for (let i = 0; i < ADDRESS_FAILURES; i++) {
      const wrong = await browser.post(form.action, { ...form.fields, user_code: 'BBBB-BBBB' });
      expect(wrong.status).toBe(400);
      expect(await wrong.text()).toContain('unknown or has expired');
    }
    const started = await start();
    // Beyond the limit even the right code is not looked at.
    const held = await browser.post(form.action, { ...form.fields, user_code: started.user_code });
    expect(held.status).toBe(429);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await held.text()).toContain('Too many wrong codes');
    server.clock.advance(900_000);
    const fresh = await start();
    const again = Browser.form(await (await browser.get(rp.url('/device'))).text());
    const ok = await browser.post(again.action, { ...again.fields, user_code: fresh.user_code });
    expect(ok.status).toBe(302);
  });
});
