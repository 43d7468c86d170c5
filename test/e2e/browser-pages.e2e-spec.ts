/**
 * The edge pages in a real browser (Debian's Chromium, driven by playwright-core): a sign-in
 * page asked for in French (`ui_locales=fr`) under a tenant's theme shows the French texts,
 * applies the theme's stylesheet (its colours as custom properties) within the pages' CSP
 * (no violation reported), has no serious accessibility violation (axe-core), and signs the
 * user in. Screenshots of each page go to test-artifacts/edge-pages/ (printed in the log).
 *
 * Needs /usr/bin/chromium (scripts/test.sh installs it); without it the suite is skipped.
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable, seriousViolations, shot } from '../support/chromium.js';
import { ADMIN_BOOTSTRAP, adminCall, adminToken } from '../support/admin.js';
import type { RelyingParty } from '../support/rp.js';
import { ALICE_PASSWORD, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';


const available = chromiumAvailable('browser-pages.e2e-spec');
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

suite('edge pages in a browser', () => {
  it('a themed sign-in in French: texts, the theme applied within the CSP, no serious accessibility violation, then signed in', async () => {
    const token = await adminToken(server, 'acme');
    await adminCall(server, contract, 'PUT', '/acme/configuration/theme', token, { colors: { primary: '#0a7f3f', background: '#f4f7f5' }, css: 'h1{font-variant:small-caps}' });
    await adminCall(server, contract, 'PUT', '/acme/configuration/locales/fr', token, { messages: { 'signIn.heading': 'Bienvenue chez Acme' } });
    const context = await browser!.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    const request = await rp.request({ extra: { ui_locales: 'fr' } });
    await page.goto(request.url);
    await page.waitForSelector('form');
    expect(await page.getAttribute('html', 'lang')).toBe('fr');
    expect(await page.title()).toBe('Connexion');
    expect(await page.textContent('h1')).toBe('Bienvenue chez Acme');
    expect(await page.textContent('label[for="password"]')).toBe('Mot de passe');
    expect(await page.textContent('button[type="submit"]')).toBe('Se connecter');
    const style = await page.evaluate(`({
      primary: getComputedStyle(document.documentElement).getPropertyValue('--edge-primary').trim(),
      button: getComputedStyle(document.querySelector('button')).backgroundColor,
      body: getComputedStyle(document.body).backgroundColor,
      heading: getComputedStyle(document.querySelector('h1')).fontVariantCaps,
    })`);
    expect(style).toEqual({ primary: '#0a7f3f', button: 'rgb(10, 127, 63)', body: 'rgb(244, 247, 245)', heading: 'small-caps' });
    await shot(page, 'sign-in-fr-themed');
    expect(await seriousViolations(page)).toEqual([]);

    // Keyboard only: the fields are labelled and reached in order.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('username');
    await page.keyboard.type('alice');
    await page.keyboard.press('Tab');
    await page.keyboard.type('wrong password');
    await page.keyboard.press('Enter');
    await page.waitForSelector('p.error');
    expect(await page.textContent('p.error')).toBe("Nom d'utilisateur ou mot de passe incorrect.");
    await shot(page, 'sign-in-fr-error');
    expect(await seriousViolations(page)).toEqual([]);

    await page.fill('#password', ALICE_PASSWORD);
    const [callback] = await Promise.all([page.waitForRequest((r) => r.url().startsWith(request.redirectUri)), page.click('button[type="submit"]')]);
    expect(new URL(callback.url()).searchParams.get('code')).toBeTruthy();
    expect(violations).toEqual([]);
    await context.close();
  });

  it('the sign-out page, in English by Accept-Language, themed', async () => {
    const context = await browser!.newContext({ locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(rp.url('/logout'));
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.textContent('h1')).toBe('Signed out');
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(244, 247, 245)');
    await shot(page, 'signed-out-en');
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });
});
