/**
 * Second factors in a real browser (Debian's Chromium, driven by playwright-core): a themed
 * sign-in in French with an authenticator app set up on the way (the key read from the page,
 * its codes computed by an independent TOTP implementation, otpauth, at the server's injected
 * time), a second sign-in with a code, and one with a recovery code. Keyboard only, labelled
 * fields, no CSP violation, no serious accessibility violation (axe-core). Screenshots of each
 * page go to test-artifacts/edge-pages/ (printed in the log).
 *
 * Needs /usr/bin/chromium (scripts/test.sh installs it); without it the suite is skipped.
 */
import * as OTPAuth from 'otpauth';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, seriousViolations, shot } from '../support/chromium.js';
import { ADMIN_BOOTSTRAP, adminCall, adminToken } from '../support/admin.js';
import type { RelyingParty } from '../support/rp.js';
import { ALICE_PASSWORD, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';


const available = chromiumAvailable('browser-mfa.e2e-spec');
const suite = available ? describe : describe.skip;

let server: TestServer;
let rp: RelyingParty;
let browser: Browser | undefined;
const contract = endToEnd(async (s) => {
  ({ server, rp } = s);
  if (available) browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, ADMIN_BOOTSTRAP);

afterAll(async () => {
  await browser?.close();
});

const code = (secret: string) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: server.clock.now().getTime() });

/** A new browser context on a French sign-in, its CSP violations collected. */
async function frenchSignIn(): Promise<{ context: BrowserContext; page: Page; redirectUri: string; csp: string[] }> {
  const context = await browser!.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  const csp: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
  });
  const request = await rp.request({ extra: { ui_locales: 'fr' } });
  await page.goto(request.url);
  await page.waitForSelector('#username');
  return { context, page, redirectUri: request.redirectUri, csp };
}

/** Types the password with the keyboard only, then waits for the next page's field. */
async function typePassword(page: Page, next: string): Promise<void> {
  await page.keyboard.press('Tab');
  expect(await page.evaluate('document.activeElement.id')).toBe('username');
  await page.keyboard.type('alice');
  await page.keyboard.press('Tab');
  await page.keyboard.type(ALICE_PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForSelector(next);
}

/** Sends the answer with Enter from the focused field, and waits for the browser to reach the client. */
async function answerAndArrive(page: Page, redirectUri: string, field: string, value: string): Promise<URL> {
  await page.focus(field);
  await page.keyboard.type(value);
  const [callback] = await Promise.all([page.waitForRequest((r) => r.url().startsWith(redirectUri)), page.keyboard.press('Enter')]);
  return new URL(callback.url());
}

suite('second factors in a browser', () => {
  let secret: string;
  let recovery: string[];

  beforeAll(async () => {
    const token = await adminToken(server, 'acme');
    await adminCall(server, contract, 'PUT', '/acme/configuration/theme', token, { colors: { primary: '#0a7f3f', background: '#f4f7f5' } });
    await adminCall(server, contract, 'PUT', '/acme/configuration/challenges', token, { factors: { totp: 'required' } });
    server.clock.freeze();
  });

  afterAll(() => server.clock.release());

  it('sets up the app after the password: QR code and key, a first code, the recovery codes, then signed in', async () => {
    const { context, page, redirectUri, csp } = await frenchSignIn();
    await typePassword(page, '#enrol-code');
    expect(await page.getAttribute('html', 'lang')).toBe('fr');
    expect(await page.textContent('h1')).toBe("Configurer votre application d'authentification");
    expect(await page.textContent('label[for="enrol-code"]')).toBe("Code de l'application");
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(244, 247, 245)');
    expect(await page.locator('figure[role="img"] svg').count()).toBe(1);
    secret = (await page.textContent('#totp-secret'))!;
    await shot(page, 'mfa-enrol-fr');
    expect(await seriousViolations(page)).toEqual([]);

    await page.focus('#enrol-code');
    await page.keyboard.type(code(secret));
    await page.keyboard.press('Enter');
    await page.waitForSelector('#recovery-codes');
    expect(await page.textContent('h1')).toBe('Vos codes de secours');
    recovery = await page.locator('#recovery-codes code').allTextContents();
    expect(recovery).toHaveLength(10);
    await shot(page, 'mfa-recovery-codes-fr');
    expect(await seriousViolations(page)).toEqual([]);

    await page.keyboard.press('Tab');
    const [callback] = await Promise.all([page.waitForRequest((r) => r.url().startsWith(redirectUri)), page.keyboard.press('Enter')]);
    expect(new URL(callback.url()).searchParams.get('code')).toBeTruthy();
    expect(csp).toEqual([]);
    await context.close();
  });

  it('signs in again with a code of the app', async () => {
    server.clock.advance(30_000);
    const { context, page, redirectUri, csp } = await frenchSignIn();
    await typePassword(page, '#totp-code');
    expect(await page.textContent('h1')).toBe('Vérification en deux étapes');
    expect(await page.textContent('label[for="totp-code"]')).toBe("Code de votre application d'authentification, ou code de secours");
    await shot(page, 'mfa-code-fr');
    expect(await seriousViolations(page)).toEqual([]);
    await page.focus('#totp-code');
    await page.keyboard.type('000000');
    await page.keyboard.press('Enter');
    await page.waitForSelector('p.error');
    expect(await page.textContent('p.error')).toBe('Code incorrect ou expiré.');
    await shot(page, 'mfa-code-wrong-fr');
    expect(await seriousViolations(page)).toEqual([]);
    const arrived = await answerAndArrive(page, redirectUri, '#totp-code', code(secret));
    expect(arrived.searchParams.get('code')).toBeTruthy();
    expect(csp).toEqual([]);
    await context.close();
  });

  it('signs in with a recovery code in place of a code', async () => {
    const { context, page, redirectUri } = await frenchSignIn();
    await typePassword(page, '#totp-code');
    const arrived = await answerAndArrive(page, redirectUri, '#totp-code', recovery[3]);
    expect(arrived.searchParams.get('code')).toBeTruthy();
    await context.close();
  });
});
