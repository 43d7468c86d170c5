/**
 * A single-page application in a real browser (Debian's Chromium, driven by playwright-core):
 * served from an origin of its own, it signs the user in through the HTML login form with
 * code + PKCE, then calls the token, userinfo and revocation endpoints with fetch across
 * origins, as a browser-based public client does. Every response the browser receives from
 * the server is checked against the OpenAPI files.
 *
 * Needs /usr/bin/chromium (scripts/test.sh installs it); without it the suite is skipped.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Response as PageResponse } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from '../support/chromium.js';
import { sessionEvents } from '../support/audit.js';
import { decodeJwt } from '../support/rp.js';
import { ALICE_PASSWORD, BOOTSTRAP_YAML, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';


/**
 * The application. At `/` it starts the sign-in; at `/cb` it redeems the code and uses the
 * tokens; at `/leave` (opened from another site than the server's) it signs the user out
 * with a form POST to the end-session endpoint, which sends the browser back to `/bye`; at
 * `/forged` (opened from another site) it posts a form that claims to be the server's own
 * logout relay; at `/foreign` (opened from another origin than the client's) it tries the
 * token endpoint. What it saw goes into `#result` as JSON.
 */
const PAGE = (issuer: string) => `<!doctype html><meta charset="utf-8"><title>app</title><pre id="result"></pre>
<script type="module">
const issuer = ${JSON.stringify(issuer)};
const clientId = 'browser-app';
const redirectUri = location.origin + '/cb';
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const form = (fields) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
async function call(url, init) {
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, challenge: res.headers.get('www-authenticate') };
  } catch (e) {
    return { blocked: e.name };
  }
}
const show = (result) => { document.getElementById('result').textContent = JSON.stringify(result); };
const postForm = (action, fields) => {
  const f = Object.assign(document.createElement('form'), { method: 'POST', action });
  for (const [name, value] of Object.entries(fields)) f.append(Object.assign(document.createElement('input'), { type: 'hidden', name, value }));
  document.body.append(f);
  f.submit();
};
const meta = (await call(issuer + '/.well-known/openid-configuration')).body;
if (location.pathname === '/') {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const state = b64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem('pkce', JSON.stringify({ verifier, state }));
  const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'openid profile offline_access', state, code_challenge: challenge, code_challenge_method: 'S256' });
  location.assign(meta.authorization_endpoint + '?' + query);
} else if (location.pathname === '/cb') {
  const { verifier, state } = JSON.parse(sessionStorage.getItem('pkce'));
  const back = new URLSearchParams(location.search);
  const issued = await call(meta.token_endpoint, form({ grant_type: 'authorization_code', code: back.get('code'), redirect_uri: redirectUri, code_verifier: verifier, client_id: clientId }));
  const userinfo = await call(meta.userinfo_endpoint, { headers: { authorization: 'Bearer ' + issued.body.access_token } });
  const refreshed = await call(meta.token_endpoint, form({ grant_type: 'refresh_token', refresh_token: issued.body.refresh_token, client_id: clientId }));
  const revoked = await call(meta.revocation_endpoint, form({ token: refreshed.body.refresh_token, token_type_hint: 'refresh_token', client_id: clientId }));
  const afterRevocation = await call(meta.userinfo_endpoint, { headers: { authorization: 'Bearer ' + refreshed.body.access_token } });
  show({
    idToken: issued.body.id_token,
    stateMatches: back.get('state') === state,
    iss: back.get('iss'),
    issued: { status: issued.status, tokenType: issued.body.token_type, idToken: typeof issued.body.id_token, refreshToken: typeof issued.body.refresh_token },
    userinfo,
    refreshed: { status: refreshed.status, rotated: refreshed.body.refresh_token !== issued.body.refresh_token },
    revoked: { status: revoked.status },
    afterRevocation,
  });
} else if (location.pathname === '/leave') {
  postForm(meta.end_session_endpoint, { id_token_hint: location.hash.slice(1), post_logout_redirect_uri: location.origin + '/bye', state: 'left' });
} else if (location.pathname === '/forged') {
  postForm(meta.end_session_endpoint, { relayed: '1' });
} else if (location.pathname === '/bye') {
  show({ state: new URLSearchParams(location.search).get('state') });
} else if (location.pathname === '/foreign') {
  show({ metadata: meta.issuer, token: await call(meta.token_endpoint, form({ grant_type: 'refresh_token', refresh_token: 'any', client_id: clientId })) });
}
</script>`;

/** The same port on localhost: another site than 127.0.0.1, where the server is. */
const otherSite = (origin: string) => origin.replace('127.0.0.1', 'localhost');

let issuer = '';
let server: TestServer | undefined;
let appServer: Server | undefined;
let appOrigin = '';
let browser: Browser | undefined;

/** Serves the application on a port of its own; its origin is registered for the client below. */
async function startApp(): Promise<string> {
  appServer = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (!['/', '/cb', '/leave', '/forged', '/bye', '/foreign'].includes(path)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE(issuer));
  });
  await new Promise<void>((resolve) => appServer!.listen(0, '127.0.0.1', resolve));
  appOrigin = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
  // The public client of the application, on the first tenant.
  return BOOTSTRAP_YAML.replace(
    '    clients:\n',
    `    clients:
      - client_id: browser-app
        redirect_uris: ["${appOrigin}/cb"]
        post_logout_redirect_uris: ["${otherSite(appOrigin)}/bye"]
        grant_types: [authorization_code, refresh_token]
        scope: "openid profile offline_access"
        token_endpoint_auth_method: none
        first_party: true
`,
  );
}

const available = chromiumAvailable('browser-app.e2e-spec');
const suite = available ? describe : describe.skip;

const contract = endToEnd(
  async (s) => {
    issuer = s.rp.issuer;
    server = s.server;
    if (available) browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  },
  available ? startApp : undefined,
);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => (appServer ? appServer.close(r) : r(undefined)));
});

/**
 * Checks a response the application's scripts received from the server against the OpenAPI
 * files. (The pages the browser navigates through, whose bodies are gone once it moves on,
 * are checked by the other end-to-end suites.)
 */
async function checkContract(res: PageResponse): Promise<boolean> {
  if (!res.url().startsWith(issuer) || res.request().isNavigationRequest()) return false;
  const status = res.status();
  let body: Buffer | null = null;
  try {
    if (status !== 204) body = await res.body();
  } catch {
    return false; // the page that asked has navigated on (the first page, once it has the metadata)
  }
  await contract.check(new URL(res.url()), res.request().method(), new Response(body, { status, headers: await res.allHeaders() }));
  return true;
}

/** Opens the application, signs in as alice on the login form, and returns what its callback page saw. */
async function signInThroughApp(page: import('playwright-core').Page): Promise<Record<string, any>> {
  await page.goto(`${appOrigin}/`);
  await page.waitForURL(`${issuer}/login**`);
  await page.fill('#username', 'alice');
  await page.fill('#password', ALICE_PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(`${appOrigin}/cb**`);
  return resultOf(page);
}

async function resultOf(page: import('playwright-core').Page): Promise<Record<string, any>> {
  await page.waitForSelector('#result:not(:empty)', { state: 'attached' });
  return JSON.parse((await page.textContent('#result'))!);
}

suite('a browser-based public client', () => {
  it('signs in with code + PKCE through the login form, uses and revokes its tokens across origins, and signs out', async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const checks: Promise<boolean>[] = [];
    page.on('response', (res) => checks.push(checkContract(res)));
    const result = await signInThroughApp(page);
    // At least the callback page's six: metadata, token, userinfo, token, revocation, userinfo.
    expect((await Promise.all(checks)).filter(Boolean).length).toBeGreaterThanOrEqual(6);

    // Logging out: the browser posts the confirmation page from the server's origin, which ends
    // the session; the next sign-in asks for the password again.
    await page.goto(`${issuer}/logout`);
    await page.click('button:not([name=decline])');
    await page.waitForSelector('text=You are signed out.');
    await page.goto(`${appOrigin}/`);
    await page.waitForURL(`${issuer}/login**`);
    await context.close();

    expect(result).toMatchObject({
      stateMatches: true,
      iss: issuer,
      issued: { status: 200, tokenType: 'Bearer', idToken: 'string', refreshToken: 'string' },
      userinfo: { status: 200, body: { sub: expect.any(String), name: 'Alice Liddell' } },
      refreshed: { status: 200, rotated: true },
      revoked: { status: 200 },
      // Revoking the refresh token ended its grant; the page can read why (WWW-Authenticate is exposed).
      afterRevocation: { status: 401, challenge: expect.stringMatching(/^Bearer error="invalid_token"/) },
    });
  });

  it("signs out with the relying party's form POST from its own site, which carries no SameSite cookie", async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const { idToken } = await signInThroughApp(page);
    // The server is on 127.0.0.1; a page on localhost is another site, whose POST carries no SameSite=Lax cookie.
    await page.goto(`${otherSite(appOrigin)}/leave#${idToken}`);
    await page.waitForURL(`${otherSite(appOrigin)}/bye**`);
    expect(await resultOf(page)).toEqual({ state: 'left' });
    await context.close();
    // The session has ended (a cleared cookie alone would have left it, and its tokens, alive).
    const events = await sessionEvents(server!, decodeJwt(idToken).payload.sid as string);
    expect(events.at(-1)).toMatchObject({ type: 'SessionRevoked', data: { reason: 'logout' } });
  });

  it('keeps the session, and its cookie, when a page on another site posts a form that claims to be the logout relay', async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const { idToken } = await signInThroughApp(page);
    const sid = async () => (await context.cookies(issuer)).find((c) => c.name === 'sid')?.value;
    const before = await sid();
    expect(before).toBeDefined();
    await page.goto(`${otherSite(appOrigin)}/forged`);
    // The relay page again, on the server's origin; it waits for a click, and its POST, which
    // carries the session cookie, asks the user.
    await page.waitForURL(`${issuer}/logout`);
    expect(await sid()).toBe(before);
    await page.click('button');
    await page.waitForSelector('text=Sign out?');
    expect(await sid()).toBe(before);
    await context.close();
    const events = await sessionEvents(server!, decodeJwt(idToken).payload.sid as string);
    expect(events.map((e) => e.type)).not.toContain('SessionRevoked');
  });

  it("a page on another origin may read the metadata but not the token endpoint's answers for the client", async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    // localhost and 127.0.0.1 are different origins; the client registered only the latter.
    await page.goto(`${otherSite(appOrigin)}/foreign`);
    const result = await resultOf(page);
    await context.close();
    expect(result).toEqual({ metadata: issuer, token: { blocked: 'TypeError' } });
  });
});
