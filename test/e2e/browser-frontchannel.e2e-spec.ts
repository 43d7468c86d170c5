/**
 * Front-channel logout in a real browser (Debian's Chromium, driven by playwright-core): after
 * the user confirms the sign-out, the page loads the client's frontchannel_logout_uri (a
 * receiver on loopback) in its iframe within the page's CSP, with `iss` and `sid`, and then
 * goes on to the post_logout_redirect_uri by its script.
 *
 * Needs /usr/bin/chromium (scripts/test.sh installs it); without it the suite is skipped.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from '../support/chromium.js';
import { ADMIN_BOOTSTRAP, adminCall, adminToken } from '../support/admin.js';
import { decodeJwt, type RelyingParty } from '../support/rp.js';
import { REDIRECT, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';


const available = chromiumAvailable('browser-frontchannel.e2e-spec');
const suite = available ? describe : describe.skip;

let server: TestServer;
let rp: RelyingParty;
let browser: Browser | undefined;
const contract = endToEnd(async (s) => {
  ({ server, rp } = s);
  if (available) browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, ADMIN_BOOTSTRAP);

/** The relying party's pages on loopback: every path asked for, in order. */
const seen: string[] = [];
let receiver: Server;
let base = '';
beforeAll(async () => {
  receiver = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>rp</title><p>rp</p>');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => receiver.close(resolve));
});

suite('front-channel logout in a browser', () => {
  it('loads the receiver page in the iframe with iss and sid, reports no CSP violation, then goes to the post_logout_redirect_uri', async () => {
    const res = await adminCall(server, contract, 'POST', '/acme/configuration/clients', await adminToken(server, 'acme'), {
      client_id: 'fc-browser',
      redirect_uris: [REDIRECT],
      post_logout_redirect_uris: [`${base}/bye`],
      grant_types: ['authorization_code'],
      scope: 'openid',
      token_endpoint_auth_method: 'none',
      first_party: true,
      frontchannel_logout_uri: `${base}/fc`,
      frontchannel_logout_session_required: true,
    });
    expect(res.status).toBe(201);
    rp.auths.set('fc-browser', () => oauth.None());
    // Signed in by the test's own browser; Chromium takes over its session cookie.
    const signIn = rp.browser();
    const tokens = await rp.tokens({ clientId: 'fc-browser', scope: 'openid' }, signIn);
    const { sid } = decodeJwt(tokens.id_token!).payload as { sid: string };
    const issuer = new URL(rp.issuer);
    const context = await browser!.newContext();
    await context.addCookies([{ name: 'sid', value: signIn.cookie('sid')!, domain: issuer.hostname, path: issuer.pathname, httpOnly: true, sameSite: 'Lax' }]);
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    const logout = new URL(rp.as.end_session_endpoint!);
    logout.search = new URLSearchParams({ id_token_hint: tokens.id_token!, post_logout_redirect_uri: `${base}/bye`, state: 'st' }).toString();
    await page.goto(logout.href);
    await page.waitForSelector('form');
    // The confirmation page's first button signs out; the page after it goes on by itself.
    await Promise.all([page.waitForURL(`${base}/bye?state=st`), page.click('button[type="submit"]:not([name])')]);
    const fc = seen.filter((p) => p.startsWith('/fc'));
    expect(fc).toEqual([`/fc?${new URLSearchParams({ iss: rp.issuer, sid })}`]);
    expect(seen.indexOf(fc[0])).toBeLessThan(seen.indexOf('/bye?state=st'));
    expect(violations).toEqual([]);
    await context.close();
  });
});
