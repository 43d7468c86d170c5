/**
 * Passkeys in a real browser (Debian's Chromium, driven by playwright-core) with Chromium's
 * virtual authenticator (DevTools protocol, WebAuthn domain): a passkey registered right after
 * the password, then a second sign-in with password and passkey; the ID token's `amr` and
 * `acr`. The pages' served script does the navigator.credentials part. Keyboard only, no CSP
 * violation, no serious accessibility violation (axe-core); screenshots of each page go to
 * test-artifacts/edge-pages/. The server's address is `localhost`: WebAuthn takes no IP
 * address as RP ID, and plain http is a secure context on localhost only.
 *
 * Needs /usr/bin/chromium (scripts/test.sh installs it); without it the suite is skipped.
 */
import { type Browser, type BrowserContext, type CDPSession, chromium, type Page } from 'playwright-core';
import { ADMIN_BOOTSTRAP, adminCall, adminToken } from '../support/admin.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, seriousViolations, shot } from '../support/chromium.js';
import { decodeJwt, type RelyingParty } from '../support/rp.js';
import { ALICE_PASSWORD, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

const available = chromiumAvailable('browser-passkeys.e2e-spec');
const suite = available ? describe : describe.skip;

let server: TestServer;
let rp: RelyingParty;
let browser: Browser | undefined;
const contract = endToEnd(
  async (s) => {
    ({ server, rp } = s);
    if (available) browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  },
  ADMIN_BOOTSTRAP,
  { host: 'localhost' },
);

afterAll(async () => {
  await browser?.close();
});

suite('passkeys in a browser', () => {
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  let idToken: string;
  const csp: string[] = [];

  beforeAll(async () => {
    const token = await adminToken(server, 'acme');
    expect((await adminCall(server, contract, 'PUT', '/acme/configuration/challenges', token, { factors: { webauthn: 'required' } })).status).toBe(201);
    // One browser profile, one authenticator, kept across both sign-ins (as a user's laptop would).
    context = await browser!.newContext({ locale: 'en-US' });
    page = await context.newPage();
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
    });
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    }));
  });

  afterAll(async () => {
    await context?.close();
  });

  /** Starts an authorization and types the password with the keyboard only; waits for the passkey button. */
  async function signIn(extra?: Record<string, string>) {
    const request = await rp.request({ extra });
    await page.goto(request.url);
    await page.waitForSelector('#username');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('username');
    await page.keyboard.type('alice');
    await page.keyboard.press('Tab');
    await page.keyboard.type(ALICE_PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#passkey-start');
    return request;
  }

  /**
   * Resolves once the browser shows its error page for the client's address, where nothing
   * listens: a navigation started before that would be cut short by it.
   */
  function clientPageFailed(): Promise<unknown> {
    return page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame() && f.url().startsWith('chrome-error:') });
  }

  /** Presses Enter (on the focused passkey button, or Continue); the browser reaches the client; the ID token's claims. */
  async function arrive(request: Awaited<ReturnType<typeof rp.request>>) {
    const ended = clientPageFailed();
    const [callback] = await Promise.all([page.waitForRequest((r) => r.url().startsWith(request.redirectUri)), page.keyboard.press('Enter')]);
    await ended;
    const url = new URL(callback.url());
    const res = new Response(null, { status: 302, headers: { location: url.href } });
    const tokens = await rp.redeem('web', { res, ...request, callback: url, loginShown: true });
    idToken = tokens.id_token!;
    return decodeJwt(idToken).payload;
  }

  it('registers a passkey right after the password, shows the recovery codes, and signs in with it', async () => {
    const request = await signIn();
    expect(page.url()).toContain('/acme/mfa-passkey-enrol');
    expect(await page.textContent('h1')).toBe('Create a passkey');
    await shot(page, 'passkey-enrol-en');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate('document.activeElement.id')).toBe('passkey-start');
    await page.keyboard.press('Enter');
    // A user with no app and no recovery codes gets them with the passkey, once.
    await page.waitForSelector('#recovery-codes');
    expect(await page.locator('#recovery-codes code').count()).toBe(10);
    await shot(page, 'passkey-recovery-codes-en');
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Tab');
    expect(await arrive(request)).toMatchObject({ amr: ['pwd', 'hwk', 'mfa'], acr: 'urn:authserver:acr:mfa' });
    expect(csp).toEqual([]);
  });

  it('signs out, then signs in again with password and passkey (in French)', async () => {
    // RP-initiated logout: the confirmation's sign-out button, then on to the client.
    const logout = new URL(rp.as.end_session_endpoint!);
    logout.search = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: 'http://127.0.0.1:9999/bye' }).toString();
    await page.goto(logout.href);
    await page.waitForSelector('form');
    await Promise.all([clientPageFailed(), page.waitForRequest((r) => r.url().startsWith('http://127.0.0.1:9999/bye')), page.click('button[type="submit"]:not([name])')]);
    expect((await context.cookies()).some((c) => c.name === 'sid')).toBe(false);
    const request = await signIn({ ui_locales: 'fr' });
    expect(page.url()).toContain('/acme/mfa?');
    expect(await page.getAttribute('html', 'lang')).toBe('fr');
    expect(await page.textContent('#passkey-start')).toBe("Utiliser une clé d'accès");
    await shot(page, 'passkey-sign-in-fr');
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate('document.activeElement.id')).toBe('passkey-start');
    expect(await arrive(request)).toMatchObject({ amr: ['pwd', 'hwk', 'mfa'], acr: 'urn:authserver:acr:mfa' });
    expect(csp).toEqual([]);
  });

  it('the authenticator refuses (user verification fails): the message, and the button again', async () => {
    await context.clearCookies();
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
    try {
      await signIn();
      await page.keyboard.press('Enter');
      await page.waitForSelector('#passkey-status:not([hidden])');
      expect(await page.textContent('#passkey-status')).toBe('No passkey was used. Try again, or use another way.');
      expect(await page.evaluate('document.activeElement.id')).toBe('passkey-start');
      await shot(page, 'passkey-refused-en');
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
    }
  });
});
