/**
 * Names that are also Object.prototype properties (`constructor`, `__proto__`, `toString`,
 * `hasOwnProperty`) as client ids, scopes, parameter names and cookie names, through every
 * endpoint: each is a name like any other, never a 500.
 */
import * as oauth from 'oauth4webapi';
import { Browser } from '../support/browser.js';
import { decodeJwt, RelyingParty, type SignedIn } from '../support/rp.js';
import { ALICE_PASSWORD, REDIRECT, type TestServer, WEB_SECRET } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
const SCOPE = `openid profile ${NAMES.join(' ')}`;
const BYE = 'http://127.0.0.1:9999/bye';

const BOOTSTRAP = `
tenants:
  - id: acme
    clients:
      - client_id: constructor
        client_name: Constructor App
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        post_logout_redirect_uris: ["${BYE}"]
        grant_types: [authorization_code, refresh_token]
        scope: "${SCOPE} offline_access"
      - client_id: __proto__
        redirect_uris: ["${REDIRECT}"]
        post_logout_redirect_uris: ["${BYE}"]
        grant_types: [authorization_code, refresh_token]
        scope: "${SCOPE} offline_access"
        first_party: true
      - client_id: toString
        client_secret: "${WEB_SECRET}"
        grant_types: [client_credentials]
        scope: "${NAMES.join(' ')}"
      - client_id: hasOwnProperty
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code, refresh_token]
        scope: "${SCOPE} offline_access"
        first_party: true
        token_endpoint_auth_method: client_secret_post
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
        name: Alice Liddell
      - username: constructor
        password: "${ALICE_PASSWORD}"
`;

let rp: RelyingParty;
let server: TestServer;
const contract = endToEnd((s) => {
  ({ rp, server } = s);
  rp.auths.set('constructor', () => oauth.ClientSecretBasic(WEB_SECRET));
  rp.auths.set('__proto__', () => oauth.None());
  rp.auths.set('toString', () => oauth.ClientSecretBasic(WEB_SECRET));
  rp.auths.set('hasOwnProperty', () => oauth.ClientSecretPost(WEB_SECRET));
}, BOOTSTRAP);

/** Signs in (the login form, then the consent page when shown) and redeems the code. */
async function signInAndRedeem(clientId: string, browser = rp.browser(), scope = `${SCOPE} offline_access`): Promise<oauth.TokenEndpointResponse> {
  const s = await rp.signIn(browser, { clientId, scope });
  let signedIn: SignedIn = s;
  if (s.res.status === 302 && s.res.headers.get('location')!.startsWith(rp.issuer)) {
    const page = await browser.follow(new URL(s.res.headers.get('location')!, rp.issuer).href, server.baseUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Allow access?');
    for (const n of NAMES) expect(html).toContain(`<li>${n}</li>`);
    const form = Browser.form(html);
    const res = await browser.post(form.action, { ...form.fields, decision: 'allow' });
    signedIn = { ...s, res, callback: new URL(res.headers.get('location')!) };
  }
  return rp.redeem(clientId, signedIn);
}

async function userinfo(accessToken: string): Promise<Record<string, unknown>> {
  const res = await oauth.userInfoRequest(rp.as, rp.client('x'), accessToken, rp.options);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** Whether userinfo still takes the access token (a public client cannot introspect). */
async function accepted(accessToken: string): Promise<boolean> {
  const res = await oauth.userInfoRequest(rp.as, rp.client('x'), accessToken, rp.options);
  await res.arrayBuffer();
  return res.status === 200;
}

describe('prototype names as client ids and scopes', () => {
  it.each(['constructor', '__proto__', 'hasOwnProperty'])('client %s signs in (with consent when third-party), redeems, refreshes, reads userinfo, introspects and revokes', async (clientId) => {
    const browser = rp.browser();
    const tokens = await signInAndRedeem(clientId, browser);
    expect(decodeJwt(tokens.access_token).payload).toMatchObject({ client_id: clientId, scope: `${SCOPE} offline_access` });
    expect(await userinfo(tokens.access_token)).toEqual({ sub: expect.any(String), name: 'Alice Liddell', updated_at: expect.any(Number) });
    // Asked again in the same browser: consent remembered, no page shown.
    const again = await rp.signIn(browser, { clientId, scope: `${SCOPE} offline_access`, extra: { prompt: 'none' } });
    expect(rp.codeParams(again, clientId).get('code')).toBeTruthy();
    if (clientId !== '__proto__') expect(await rp.active(tokens.access_token, clientId)).toBe(true);
    const refreshed = await rp.refresh(clientId, tokens.refresh_token!);
    expect(await accepted(refreshed.access_token)).toBe(true);
    await rp.revoke(refreshed.refresh_token!, clientId);
    expect(await accepted(refreshed.access_token)).toBe(false);
  });

  it('a client_credentials token of client toString carries its prototype-named scopes, and userinfo refuses it as a client token', async () => {
    const t = await rp.clientCredentials('toString', NAMES.join(' '));
    expect(t.scope).toBe(NAMES.join(' '));
    expect(await rp.introspect(t.access_token, 'toString')).toMatchObject({ active: true, client_id: 'toString', scope: NAMES.join(' ') });
    const res = await oauth.userInfoRequest(rp.as, rp.client('x'), t.access_token, rp.options);
    expect(res.status).toBe(403);
    await rp.revoke(t.access_token, 'toString');
    expect(await rp.active(t.access_token, 'toString')).toBe(false);
  });

  it('a user named constructor signs in like any other', async () => {
    const tokens = await rp.tokens({ clientId: '__proto__', scope: 'openid', username: 'constructor' });
    expect(await userinfo(tokens.access_token)).toEqual({ sub: expect.any(String) });
  });

  it('logs a client named __proto__ out back to its post_logout_redirect_uri', async () => {
    const browser = rp.browser();
    const tokens = await signInAndRedeem('__proto__', browser);
    // A POST from the client's own origin, with a hint of this browser's session, needs no confirmation.
    const fields = { id_token_hint: tokens.id_token!, post_logout_redirect_uri: BYE, state: 'st' };
    const res = await browser.post(rp.as.end_session_endpoint!, fields, new URL(BYE).origin);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${BYE}?state=st`);
    expect(await accepted(tokens.access_token)).toBe(false);
  });

  it.each(['valueOf', 'isPrototypeOf', '__defineGetter__', 'toLocaleString'])('answers an unregistered client or scope %s as any unknown one', async (name) => {
    const res = await fetch(rp.authorizeUrl({ response_type: 'code', client_id: name, redirect_uri: REDIRECT, scope: 'openid' }), { redirect: 'manual' });
    expect([res.status, res.headers.get('content-type')]).toEqual([400, expect.stringMatching(/^text\/html/)]);
    await res.arrayBuffer();
    const token = await rp.post('/token', { grant_type: 'client_credentials', scope: name }, { authorization: `Basic ${Buffer.from(`toString:${WEB_SECRET}`).toString('base64')}` });
    expect([token.status, ((await token.json()) as { error: string }).error]).toEqual([400, 'invalid_scope']);
    const intro = await rp.post('/introspect', { token: 'x', client_id: name, client_secret: WEB_SECRET });
    expect([intro.status, ((await intro.json()) as { error: string }).error]).toEqual([401, 'invalid_client']);
    // OpenID Connect Core §3.1.2.1: a scope not understood is ignored.
    const tokens = await rp.tokens({ clientId: '__proto__', scope: `openid ${name}` });
    expect(tokens.scope).toBe('openid');
  });
});

describe('prototype names as parameter and cookie names', () => {
  const protoParams = Object.fromEntries(NAMES.map((n) => [n, 'x']));

  it.each(['/token', '/introspect', '/revoke', '/consent', '/login', '/logout'])('POST %s with parameters named like prototype properties is a client error', async (path) => {
    const res = await rp.post(path, protoParams, { cookie: NAMES.map((n) => `${n}=x`).join('; ') });
    expect(res.status).toBeGreaterThanOrEqual(200);
    expect(res.status).toBeLessThan(500);
    await res.arrayBuffer();
  });

  it.each(['/authorize', '/userinfo', '/logout', '/consent', '/.well-known/openid-configuration', '/.well-known/jwks.json'])('GET %s with prototype names in the query and the cookies is no 500', async (path) => {
    const url = new URL(rp.url(path));
    for (const n of NAMES) url.searchParams.append(n, n);
    const res = await contract.fetch(url.href, { headers: { cookie: NAMES.map((n) => `${n}=${n}`).join('; ') }, redirect: 'manual' });
    expect(res.status).toBeLessThan(500);
    await res.arrayBuffer();
  });

  it('a browser cookie named __proto__ beside the session cookie leaves the session working', async () => {
    const browser = rp.browser();
    await signInAndRedeem('__proto__', browser);
    for (const n of NAMES) browser.setCookie(n, n);
    const again = await rp.signIn(browser, { clientId: '__proto__', scope: 'openid', extra: { prompt: 'none' } });
    expect(rp.codeParams(again, '__proto__').get('code')).toBeTruthy();
  });
});
