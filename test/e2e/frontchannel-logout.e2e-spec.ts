import * as oauth from 'oauth4webapi';
import { ADMIN_BOOTSTRAP, adminCall, adminToken } from '../support/admin.js';
import type { Browser } from '../support/browser.js';
import { decodeJwt, type RelyingParty } from '../support/rp.js';
import { REDIRECT, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

/** The origin of the test clients' redirect URIs: where their pages are, and a logout is posted from. */
const CLIENT_ORIGIN = new URL(REDIRECT).origin;
const BYE = 'http://127.0.0.1:9999/bye';

let rp: RelyingParty;
let server: TestServer;
const contract = endToEnd((s) => ({ rp, server } = s), ADMIN_BOOTSTRAP);

let clients = 0;
/** A new public, first-party client (no consent page) with the given metadata. */
async function client(extra: Record<string, unknown> = {}): Promise<string> {
  const clientId = `fc-${++clients}`;
  const res = await adminCall(server, contract, 'POST', '/acme/configuration/clients', await adminToken(server, 'acme'), {
    client_id: clientId,
    redirect_uris: [REDIRECT],
    post_logout_redirect_uris: [BYE],
    grant_types: ['authorization_code'],
    scope: 'openid',
    token_endpoint_auth_method: 'none',
    first_party: true,
    ...extra,
  });
  expect(res.status).toBe(201);
  rp.auths.set(clientId, () => oauth.None());
  return clientId;
}

/** One browser signed in through each client in turn (one session), and the ID token of the first, and the session id. */
async function signedIn(...clientIds: string[]): Promise<{ browser: Browser; idToken: string; sid: string }> {
  const browser = rp.browser();
  const sids = new Set<string>();
  let idToken = '';
  for (const clientId of clientIds) {
    const tokens = await rp.tokens({ clientId, scope: 'openid' }, browser);
    idToken ||= tokens.id_token!;
    sids.add((decodeJwt(tokens.id_token!).payload as { sid: string }).sid);
  }
  expect(sids.size).toBe(1);
  return { browser, idToken, sid: [...sids][0] };
}

const unescape = (s: string) => s.replace(/&amp;|&#38;/g, '&').replace(/&#x3D;|&#61;/g, '=');
const iframes = (html: string) => [...html.matchAll(/<iframe[^>]*\ssrc="([^"]*)"/g)].map((m) => unescape(m[1]));
const directive = (csp: string | null, name: string) =>
  csp
    ?.split(';')
    .map((d) => d.trim().split(/\s+/))
    .find(([n]) => n === name)
    ?.slice(1);

describe('front-channel logout metadata', () => {
  it('announces front-channel logout with iss and sid in discovery', () => {
    expect(rp.as.frontchannel_logout_supported).toBe(true);
    expect(rp.as.frontchannel_logout_session_supported).toBe(true);
  });

  it('takes https, and http on loopback or private hosts; refuses plain http elsewhere, fragments, other schemes, and session_required alone', async () => {
    const bearer = await adminToken(server, 'acme');
    const create = (extra: Record<string, unknown>) => adminCall(server, contract, 'POST', '/acme/configuration/clients', bearer, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...extra });
    for (const ok of ['https://rp.example.com/logout?from=op', 'http://127.0.0.1:8080/fc', 'http://localhost:81/fc', 'http://[::1]:9/fc']) {
      const res = await create({ frontchannel_logout_uri: ok, frontchannel_logout_session_required: true });
      expect([ok, res.status]).toEqual([ok, 201]);
      expect(res.body).toMatchObject({ frontchannel_logout_uri: ok, frontchannel_logout_session_required: true });
    }
    for (const bad of ['http://rp.example.com/logout', 'https://rp.example.com/logout#x', 'ftp://10.0.0.1/x', 'javascript:alert(1)', '/relative', 'http://8.8.8.8/fc']) {
      const res = await create({ frontchannel_logout_uri: bad });
      expect([bad, res.status]).toEqual([bad, 400]);
      expect(String(res.body.error_description ?? res.body.detail ?? JSON.stringify(res.body))).toContain('frontchannel_logout_uri');
    }
    expect((await create({ frontchannel_logout_session_required: true })).status).toBe(400);
  });
});

describe('the page after a logout', () => {
  it('loads each front-channel client of the session in an iframe, iss and sid when required, frame-src exactly their origins, then continues to the post_logout_redirect_uri', async () => {
    const withSid = await client({ frontchannel_logout_uri: 'http://127.0.0.1:7001/fc', frontchannel_logout_session_required: true });
    const plain = await client({ frontchannel_logout_uri: 'https://rp-b.example/logout?tenant=acme' });
    const none = await client();
    const { browser, idToken, sid } = await signedIn(withSid, plain, none);
    expect(browser.cookie('sid')).toBeDefined();
    const res = await browser.post(rp.as.end_session_endpoint!, { id_token_hint: idToken, post_logout_redirect_uri: BYE, state: 'st' }, CLIENT_ORIGIN);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(iframes(html).sort()).toEqual([`http://127.0.0.1:7001/fc?iss=${encodeURIComponent(rp.issuer)}&sid=${sid}`, 'https://rp-b.example/logout?tenant=acme'].sort());
    expect(html).toMatch(/<iframe hidden/);
    const csp = res.headers.get('content-security-policy');
    expect(directive(csp, 'frame-src')?.sort()).toEqual(['http://127.0.0.1:7001', 'https://rp-b.example']);
    expect(directive(csp, 'script-src')).toEqual(["'self'"]);
    // The continuation: a link, followed by a same-origin script file once the iframes loaded.
    expect(unescape(html)).toContain(`<a id="continue" href="${BYE}?state=st">`);
    expect(html).toContain('<script src="assets/logout-continue.js"></script>');
    expect(html).not.toMatch(/<script>/);
    const script = await rp.browser().get(rp.url('/assets/logout-continue.js'));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    // The session is over.
    expect(browser.cookie('sid')).toBeUndefined();
  });

  it('shows the signed-out page with the iframes when there is nowhere to go back to, in the page language', async () => {
    const c = await client({ frontchannel_logout_uri: 'https://rp-c.example/fc', frontchannel_logout_session_required: false });
    const { browser, idToken } = await signedIn(c);
    const res = await browser.post(rp.as.end_session_endpoint!, { id_token_hint: idToken, ui_locales: 'fr' }, CLIENT_ORIGIN);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(iframes(html)).toEqual(['https://rp-c.example/fc']);
    expect(html).toContain('Vous êtes déconnecté.');
    expect(html).not.toContain('id="continue"');
    expect(html).not.toContain('<script');
    expect(directive(res.headers.get('content-security-policy'), 'frame-src')).toEqual(['https://rp-c.example']);
  });

  it('a session of clients without the metadata gets no iframe and no frame-src: the redirect as before', async () => {
    const c = await client();
    const { browser, idToken } = await signedIn(c);
    const res = await browser.post(rp.as.end_session_endpoint!, { id_token_hint: idToken, post_logout_redirect_uri: BYE }, CLIENT_ORIGIN);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(BYE);
    expect(directive(res.headers.get('content-security-policy'), 'frame-src')).toBeUndefined();
    const again = await signedIn(c);
    const signedOut = await again.browser.post(rp.as.end_session_endpoint!, { id_token_hint: again.idToken }, CLIENT_ORIGIN);
    expect(signedOut.status).toBe(200);
    const html = await signedOut.text();
    expect(html).toContain('You are signed out.');
    expect(iframes(html)).toEqual([]);
    expect(directive(signedOut.headers.get('content-security-policy'), 'frame-src')).toBeUndefined();
  });
});
