import * as oauth from 'oauth4webapi';
import { tokenHistory } from '../support/audit.js';
import type { TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';
import { Browser } from '../support/browser.js';
import { BOB_PASSWORD, decodeJwt, RelyingParty } from '../support/rp.js';

const BYE = 'http://127.0.0.1:9999/bye';
/** The origin of the web client's registered redirect URIs: where its own pages are. */
const WEB_ORIGIN = 'http://127.0.0.1:9999';

let rp: RelyingParty;
let server: TestServer;
const contract = endToEnd((s) => ({ rp, server } = s));

function logoutUrl(params: Record<string, string>): string {
  const url = new URL(rp.as.end_session_endpoint!);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

/** A browser signed in as alice, with the tokens of that session. */
async function signedIn(): Promise<{ browser: Browser; tokens: oauth.TokenEndpointResponse }> {
  const browser = rp.browser();
  const tokens = await rp.tokens({}, browser);
  expect(browser.cookie('sid')).toBeDefined();
  return { browser, tokens };
}

/** Whether the browser's session still lets a prompt=none request through. */
/** The status userinfo answers `accessToken` with: how a public client's token is seen to live. */
async function userinfoStatus(accessToken: string): Promise<number> {
  const res = await oauth.userInfoRequest(rp.as, rp.client('spa'), accessToken, rp.options);
  await res.body?.cancel();
  return res.status;
}

async function stillSignedIn(browser: Browser): Promise<boolean> {
  const s = await rp.signIn(browser, { extra: { prompt: 'none' } });
  return s.callback?.searchParams.has('code') === true;
}

async function expectErrorPage(res: Response): Promise<void> {
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.getSetCookie()).toEqual([]);
}

describe('rejected logout requests', () => {
  it('shows a 400 page for an id_token_hint that is not an ID token of this tenant, and keeps the session', async () => {
    const { browser, tokens } = await signedIn();
    const [h, p, sig] = tokens.id_token!.split('.');
    const hints = {
      garbage: 'garbage',
      'an access token': tokens.access_token,
      'an altered ID token': `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(tokens.id_token!).payload, sub: 'someone-else' })).toString('base64url')}.${sig}`,
      'an unsigned ID token': `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`,
    };
    for (const [what, hint] of Object.entries(hints)) {
      const res = await browser.get(logoutUrl({ id_token_hint: hint, post_logout_redirect_uri: BYE }));
      await expectErrorPage(res).catch((e: Error) => {
        throw new Error(`${what}: ${e.message}`);
      });
    }
    expect(await stillSignedIn(browser)).toBe(true);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
  });

  it('shows a 400 page for a repeated parameter or a body it cannot read', async () => {
    const { browser } = await signedIn();
    await expectErrorPage(await browser.get(`${logoutUrl({ client_id: 'web' })}&client_id=web`));
    await expectErrorPage(await contract.fetch(logoutUrl({}), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }));
    expect(await stillSignedIn(browser)).toBe(true);
  });

  it('shows a 400 page for an unregistered post_logout_redirect_uri, and keeps the session', async () => {
    const { browser, tokens } = await signedIn();
    await expectErrorPage(await browser.get(logoutUrl({ id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'https://evil.example/bye' })));
    await expectErrorPage(await browser.get(logoutUrl({ id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'http://127.0.0.1:9999/cb' })));
    await expectErrorPage(await browser.get(logoutUrl({ client_id: 'web', post_logout_redirect_uri: 'https://evil.example/bye' })));
    // A registered URI of another client (spa has none).
    await expectErrorPage(await browser.get(logoutUrl({ client_id: 'spa', post_logout_redirect_uri: BYE })));
    // Without id_token_hint or client_id nothing identifies the client the URI would belong to.
    await expectErrorPage(await browser.get(logoutUrl({ post_logout_redirect_uri: BYE })));
    // A client_id that contradicts the hint.
    await expectErrorPage(await browser.get(logoutUrl({ id_token_hint: tokens.id_token!, client_id: 'spa' })));
    // A state too long to send back.
    await expectErrorPage(await browser.get(logoutUrl({ id_token_hint: tokens.id_token!, post_logout_redirect_uri: BYE, state: 's'.repeat(2049) })));
    expect(await stillSignedIn(browser)).toBe(true);
    expect(await rp.active(tokens.access_token)).toBe(true);
  });
});

describe('logout without id_token_hint', () => {
  it('shows a confirmation page and does not log out on GET', async () => {
    const { browser, tokens } = await signedIn();
    const res = await browser.get(logoutUrl({ client_id: 'web', post_logout_redirect_uri: BYE, state: 's1' }));
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
    const html = await res.text();
    expect(html).toContain('Sign out?');
    const form = Browser.form(html);
    expect(form.action).toBe(rp.as.end_session_endpoint);
    expect(form.fields).toMatchObject({ client_id: 'web', post_logout_redirect_uri: BYE, state: 's1', confirm: expect.stringMatching(/^hmac-sha256:/) });
    expect(browser.cookie('sid')).toBeDefined();
    expect(await stillSignedIn(browser)).toBe(true);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
  });

  it('takes the confirmation only with the value its page carries, which no other page can know', async () => {
    const { browser, tokens } = await signedIn();
    const other = await signedIn();
    const theirs = Browser.form(await (await other.browser.get(logoutUrl({}))).text()).fields.confirm;
    for (const confirm of ['yes', theirs]) {
      const res = await browser.post(rp.as.end_session_endpoint!, { confirm });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('Sign out?');
    }
    expect(await stillSignedIn(browser)).toBe(true);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
  });

  it('answers HEAD 405, without ending the session (nor issuing a code at /authorize)', async () => {
    const { browser, tokens } = await signedIn();
    const cookie = `sid=${browser.cookie('sid')}`;
    const logout = await fetch(logoutUrl({ id_token_hint: tokens.id_token!, post_logout_redirect_uri: BYE }), { method: 'HEAD', headers: { cookie }, redirect: 'manual' });
    const authorize = await fetch((await rp.request()).url, { method: 'HEAD', headers: { cookie }, redirect: 'manual' });
    for (const res of [logout, authorize]) {
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, POST');
    }
    expect(await stillSignedIn(browser)).toBe(true);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
  });

  it('does not take confirm=yes from a GET link (a stray link cannot sign anyone out)', async () => {
    const { browser, tokens } = await signedIn();
    const res = await browser.get(logoutUrl({ confirm: 'yes' }));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Sign out?');
    expect(await stillSignedIn(browser)).toBe(true);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
  });

  it("logs out when the confirmation is posted, and revokes the session's tokens", async () => {
    const { browser, tokens } = await signedIn();
    const page = await browser.get(logoutUrl({ client_id: 'web', post_logout_redirect_uri: BYE, state: 's2' }));
    const form = Browser.form(await page.text());
    const res = await browser.post(form.action, form.fields);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${BYE}?state=s2`);
    expect(browser.cookie('sid')).toBeUndefined();
    expect(await rp.active(tokens.access_token)).toBe(false);
    expect(await rp.active(tokens.refresh_token!)).toBe(false);
    const s = await rp.signIn(browser, { extra: { prompt: 'none' } });
    expect(s.callback?.searchParams.get('error')).toBe('login_required');
  });

  it('ends nothing when the user chooses to stay signed in, and sends the browser back to the client all the same', async () => {
    const { browser, tokens } = await signedIn();
    const page = await browser.get(logoutUrl({ client_id: 'web', post_logout_redirect_uri: BYE, state: 's3' }));
    const html = await page.text();
    expect(html).toContain('name="decline"');
    const form = Browser.form(html);
    const res = await browser.post(form.action, { ...form.fields, decline: '1' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${BYE}?state=s3`);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
    expect(await stillSignedIn(browser)).toBe(true);
    // Without a redirect, a page says so.
    const bare = Browser.form(await (await browser.get(logoutUrl({}))).text());
    const stay = await browser.post(bare.action, { ...bare.fields, decline: '1' });
    expect(stay.status).toBe(200);
    expect(await stay.text()).toContain('Still signed in');
    expect(await stillSignedIn(browser)).toBe(true);
    // A link cannot decline for the user: a GET gets the question, whose Sign out still signs out.
    const asked = await (await browser.get(logoutUrl({ client_id: 'web', post_logout_redirect_uri: BYE, decline: '1', relayed: '1' }))).text();
    expect(asked).toContain('Sign out?');
    expect(asked).not.toMatch(/type="hidden" name="(decline|relayed)"/);
    const signOut = Browser.form(asked);
    const out = await browser.post(signOut.action, signOut.fields);
    expect(out.headers.get('location')).toBe(BYE);
    expect(browser.cookie('sid')).toBeUndefined();
    expect(await rp.active(tokens.refresh_token!)).toBe(false);
  });

  it('asks again after relaying a POST without the cookie, and the answer carries only the fields of the question', async () => {
    const { browser } = await signedIn();
    // A relying party's form on its own site: no cookie, so the relay page posts it again from here.
    const relay = Browser.form(await (await rp.browser().post(`${rp.issuer}/logout`, { client_id: 'web', post_logout_redirect_uri: BYE, state: 's4' }, 'https://rp.example')).text());
    const asked = await (await browser.post(relay.action, relay.fields)).text();
    expect(asked).toContain('Sign out?');
    const fields = [...asked.matchAll(/type="hidden" name="([^"]*)"/g)].map((m) => m[1]);
    expect(fields.sort()).toEqual(['client_id', 'confirm', 'post_logout_redirect_uri', 'state']);
    const form = Browser.form(asked);
    const stay = await browser.post(form.action, { ...form.fields, decline: '1' });
    expect(stay.headers.get('location')).toBe(`${BYE}?state=s4`);
    expect(await stillSignedIn(browser)).toBe(true);
  });

  it('shows the signed-out page when the confirmation names no redirect; a logout that names no client keeps every offline grant', async () => {
    const { browser, tokens } = await signedIn();
    const form = Browser.form(await (await browser.get(logoutUrl({}))).text());
    const res = await browser.post(form.action, form.fields);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Signed out');
    expect(await stillSignedIn(browser)).toBe(false);
    // Back-Channel Logout 1.0 §2.7: the web client's grant was made with offline_access.
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
  });

  it('shows the signed-out page to a browser without a session', async () => {
    const res = await rp.browser().get(logoutUrl({}));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Signed out');
  });
});

describe('logout with id_token_hint', () => {
  it("asks first on a link with a hint of the browser's own session (an ID token is no secret), then redirects with state and revokes the session's tokens", async () => {
    const { browser, tokens } = await signedIn();
    const refreshed = await rp.refresh('web', tokens.refresh_token!);
    const asked = await browser.get(logoutUrl({ id_token_hint: tokens.id_token!, post_logout_redirect_uri: BYE, state: 'after' }));
    expect(asked.status).toBe(200);
    const form = Browser.form(await asked.text());
    expect(await stillSignedIn(browser)).toBe(true);
    expect(await rp.active(refreshed.refresh_token!)).toBe(true);
    const res = await browser.post(form.action, form.fields);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${BYE}?state=after`);
    expect(browser.cookie('sid')).toBeUndefined();
    for (const token of [tokens.access_token, refreshed.access_token, refreshed.refresh_token!]) expect(await rp.active(token)).toBe(false);
    const userinfo = await oauth.userInfoRequest(rp.as, rp.client('web'), refreshed.access_token, rp.options);
    expect(userinfo.status).toBe(401);
    await userinfo.body?.cancel();
  });

  it('ends nothing for a request that only holds an ID token: no cookie, no session to end, whatever it says', async () => {
    const { browser, tokens } = await signedIn();
    const elsewhere = rp.browser();
    const res = await elsewhere.get(logoutUrl({ id_token_hint: tokens.id_token! }));
    expect(await res.text()).toContain('Signed out');
    // Not even as a POST that claims to be the confirmation, from this server's own origin, once relayed.
    const forged = await elsewhere.post(`${rp.issuer}/logout`, { id_token_hint: tokens.id_token!, confirm: 'yes' }, new URL(rp.issuer).origin);
    const relay = Browser.form(await forged.text());
    expect(await (await elsewhere.post(relay.action, relay.fields)).text()).toContain('Signed out');
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
    expect(await stillSignedIn(browser)).toBe(true);
  });

  it("ends only the browser's own session when the hint names another user's session", async () => {
    const alice = await signedIn();
    const bob = rp.browser();
    const bobs = await rp.tokens({ username: 'bob', password: BOB_PASSWORD }, bob);
    const form = Browser.form(await (await bob.get(logoutUrl({ id_token_hint: alice.tokens.id_token! }))).text());
    await bob.post(form.action, form.fields);
    expect(await rp.active(bobs.refresh_token!)).toBe(false);
    expect(await rp.active(alice.tokens.refresh_token!)).toBe(true);
    expect(await stillSignedIn(alice.browser)).toBe(true);
  });

  it('signs out at once, without the confirmation page, when the hinted session has already ended', async () => {
    const { browser, tokens } = await signedIn();
    expect((await browser.post(rp.as.end_session_endpoint!, { id_token_hint: tokens.id_token! }, WEB_ORIGIN)).status).toBe(200);
    expect(await stillSignedIn(browser)).toBe(false);
    const again = await rp.browser().get(logoutUrl({ id_token_hint: tokens.id_token!, post_logout_redirect_uri: BYE }));
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toBe(BYE);
  });

  it("asks first when the hint names another session of the user signed in here, and ends both once confirmed", async () => {
    const other = await signedIn();
    const { browser, tokens } = await signedIn();
    const res = await browser.get(logoutUrl({ id_token_hint: other.tokens.id_token!, post_logout_redirect_uri: BYE }));
    expect(res.status).toBe(200);
    const form = Browser.form(await res.text());
    expect(form.fields).toMatchObject({ id_token_hint: other.tokens.id_token!, confirm: expect.stringMatching(/^hmac-sha256:/) });
    expect(await stillSignedIn(browser)).toBe(true);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
    expect(await rp.active(other.tokens.refresh_token!)).toBe(true);
    const confirmed = await browser.post(form.action, form.fields);
    expect(confirmed.headers.get('location')).toBe(BYE);
    expect(await rp.active(tokens.refresh_token!)).toBe(false);
    expect(await rp.active(other.tokens.refresh_token!)).toBe(false);
    expect(await stillSignedIn(other.browser)).toBe(false);
  });

  it("relays a POST without the session cookie (a relying party's form on its own site) through a page of this origin, whose POST carries it", async () => {
    const { browser, tokens } = await signedIn();
    const params = { id_token_hint: tokens.id_token!, post_logout_redirect_uri: BYE, state: 'x' };
    const posted = await contract.fetch(rp.as.end_session_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: WEB_ORIGIN },
      body: new URLSearchParams({ ...params, confirm: 'yes' }),
    });
    expect(posted.status).toBe(200);
    const relay = Browser.form(await posted.text());
    expect(relay.action).toBe(rp.as.end_session_endpoint);
    expect(relay.fields).toEqual({ ...params, relayed: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), relayed_from: WEB_ORIGIN, relayed_proof: expect.stringMatching(/^hmac-sha256:/) });
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
    // The browser posts the relay page from this origin, with its session cookie and the relay's.
    const cookie = `sid=${browser.cookie('sid')}; ${posted.headers.getSetCookie()[0].split(';')[0]}`;
    const res = await contract.fetch(relay.action, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(rp.issuer).origin, cookie },
      body: new URLSearchParams(relay.fields),
    });
    expect(res.headers.get('location')).toBe(`${BYE}?state=x`);
    expect(await rp.active(tokens.refresh_token!)).toBe(false);
  });

  it('takes a POST for the relay only with the nonce of the relay cookie, and clears no session cookie the request did not show', async () => {
    const { browser, tokens } = await signedIn();
    // A page elsewhere posts what it takes the relay to send: no cookie of this site comes with it.
    const forged = await contract.fetch(rp.as.end_session_endpoint!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ relayed: '1' }) });
    const page = await forged.text();
    // The relay again, with a nonce of its own, and no automatic submit (no loop for a browser that keeps no cookies).
    expect(Browser.form(page).fields).toEqual({ relayed: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(page).not.toContain('<script>');
    expect(forged.headers.getSetCookie()).toEqual([expect.stringMatching(/^logout-relay=[A-Za-z0-9_-]{43}; Path=\/acme; HttpOnly; SameSite=Lax; Max-Age=300$/)]);
    // The relay's own POST, from a browser with the relay cookie and no session here: it ends nothing, and clears only the relay cookie.
    const elsewhere = rp.browser();
    const relay = Browser.form(await (await elsewhere.post(`${rp.issuer}/logout`, {}, 'https://rp.example')).text());
    const relayed = await elsewhere.post(relay.action, relay.fields);
    expect(await relayed.text()).toContain('Signed out');
    expect(relayed.headers.getSetCookie()).toEqual([expect.stringMatching(/^logout-relay=; .*Max-Age=0$/)]);
    expect(await stillSignedIn(browser)).toBe(true);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
  });

  it("tells the client of a code not redeemed yet, and the client that asked, in their histories, each of its own grants only", async () => {
    const { browser, tokens } = await signedIn();
    const spaSignIn = await rp.signIn(browser, { clientId: 'spa', scope: 'openid profile' });
    const pending = rp.codeParams(spaSignIn, 'spa');
    const { sid } = decodeJwt(tokens.id_token!).payload as { sid: string };
    const res = await browser.post(rp.as.end_session_endpoint!, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: BYE }, WEB_ORIGIN);
    expect(res.status).toBe(302);
    const end = (await tokenHistory(server, { sessionId: sid })).at(-1)!;
    expect(end).toMatchObject({ type: 'SessionRevoked', data: { reason: 'logout', requestedBy: 'web', grants: [{ clientId: 'web' }, { clientId: 'spa' }] } });
    const copyFor = async (clientId: string) => (await tokenHistory(server, { clientId })).filter((e) => e.eventId === end.eventId);
    const [web] = await copyFor('web');
    const [spa] = await copyFor('spa');
    expect(web.data).toMatchObject({ requestedBy: 'web', grants: [{ clientId: 'web' }] });
    expect(spa.data.grants).toEqual([{ grantId: expect.any(String), clientId: 'spa' }]);
    expect(spa.data.requestedBy).toBeUndefined();
    // The code itself is dead.
    const redeemed = await rp.redeemRequest('spa', pending, spaSignIn.redirectUri, spaSignIn.verifier);
    expect({ status: redeemed.status, body: await redeemed.json() }).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it("signs out at once on a POST from the hinted client's own origin, with a hint of the browser's session", async () => {
    const { browser, tokens } = await signedIn();
    const res = await browser.post(rp.as.end_session_endpoint!, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: BYE }, WEB_ORIGIN);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(BYE);
    expect(await rp.active(tokens.access_token)).toBe(false);
  });

  it("asks first on a POST from another origin than the hinted client's, or through a relay whose origin proof was altered", async () => {
    const { browser, tokens } = await signedIn();
    const params = { id_token_hint: tokens.id_token!, post_logout_redirect_uri: BYE };
    for (const origin of ['https://elsewhere.example', new URL(rp.issuer).origin]) {
      const res = await browser.post(rp.as.end_session_endpoint!, params, origin);
      expect(res.status).toBe(200);
      expect(Browser.form(await res.text()).fields).toMatchObject({ confirm: expect.stringMatching(/^hmac-sha256:/) });
    }
    // Relayed: the first POST came from elsewhere, and naming the client's origin afterwards does not pass.
    const endpoint = rp.as.end_session_endpoint!;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const first = await contract.fetch(endpoint, { method: 'POST', headers: { ...form, origin: 'https://elsewhere.example' }, body: new URLSearchParams(params) });
    const relayCookie = first.headers.getSetCookie()[0].split(';')[0];
    const relay = Browser.form(await first.text());
    expect(relay.fields.relayed_from).toBe('https://elsewhere.example');
    const cookie = `sid=${browser.cookie('sid')}; ${relayCookie}`;
    for (const fields of [relay.fields, { ...relay.fields, relayed_from: WEB_ORIGIN }]) {
      const res = await contract.fetch(endpoint, { method: 'POST', redirect: 'manual', headers: { ...form, origin: new URL(rp.issuer).origin, cookie }, body: new URLSearchParams(fields) });
      expect(res.status).toBe(200);
      expect(Browser.form(await res.text()).fields).toMatchObject({ confirm: expect.stringMatching(/^hmac-sha256:/) });
    }
    expect(await stillSignedIn(browser)).toBe(true);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
  });

  it("keeps the offline grants of other clients (Back-Channel Logout 1.0 §2.7), and ends the hinted client's and the online ones", async () => {
    const { browser, tokens } = await signedIn();
    const spaOffline = await rp.tokens({ clientId: 'spa', scope: 'openid offline_access' }, browser);
    const spaOnline = await rp.tokens({ clientId: 'spa-rs', scope: 'openid' }, browser);
    expect(spaOffline.refresh_token).toBeDefined();
    const res = await browser.post(rp.as.end_session_endpoint!, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: BYE }, WEB_ORIGIN);
    expect(res.status).toBe(302);
    expect(await stillSignedIn(browser)).toBe(false);
    for (const token of [tokens.access_token, tokens.refresh_token!]) expect(await rp.active(token)).toBe(false);
    // A public client cannot introspect: its tokens are tried at userinfo.
    expect(await userinfoStatus(spaOnline.access_token)).toBe(401);
    // The kept grant goes on: its token rotates, and the new access token is active.
    const rotated = await rp.refresh('spa', spaOffline.refresh_token!);
    expect(await userinfoStatus(rotated.access_token)).toBe(200);
    const { sid } = decodeJwt(tokens.id_token!).payload as { sid: string };
    const end = (await tokenHistory(server, { sessionId: sid })).find((e) => e.type === 'SessionRevoked')!;
    expect(end.data).toMatchObject({ reason: 'logout', requestedBy: 'web', kept: [{ clientId: 'spa' }] });
  });
});
