import { ADMIN_BOOTSTRAP, adminCall, adminToken, type AdminAnswer } from '../support/admin.js';
import { Browser } from '../support/browser.js';
import type { RelyingParty } from '../support/rp.js';
import { ALICE_PASSWORD, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

const PASSWORD = 'a long enough password for a new user';

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd(async (s) => {
  ({ server, rp } = s);
  await adminCall(server, s.contract, 'PATCH', '/acme/configuration/settings', await adminToken(server, 'acme'), { registration_enabled: true });
}, ADMIN_BOOTSTRAP);

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<AdminAnswer> {
  return adminCall(server, contract, method, path, await adminToken(server, path.split('/')[1]), body, headers);
}

async function register(body: Record<string, unknown>): Promise<AdminAnswer> {
  return adminCall(server, contract, 'POST', '/acme/users/registrations', undefined, body);
}

const REGISTRATION = {
  fields: [
    { name: 'username', required: true, min_length: 3, max_length: 20, pattern: '[a-z0-9]+' },
    { name: 'email', required: true },
    { name: 'given_name', required: false, max_length: 40 },
  ],
};

/** The sign-in page of a new authorization request, in a new browser. */
async function signInPage(extra: Record<string, string> = {}): Promise<{ browser: Browser; html: string; redirectUri: string }> {
  const browser = rp.browser();
  const req = await rp.request({ extra });
  const res = await browser.follow(req.url, server.baseUrl);
  return { browser, html: await res.text(), redirectUri: req.redirectUri };
}

describe('admin API: forms', () => {
  it('PUT creates (201) then replaces; PATCH replaces the field list; If-Match; DELETE goes back to the default', async () => {
    expect((await call('GET', '/acme/configuration/forms/registration')).status).toBe(404);
    const created = await call('PUT', '/acme/configuration/forms/registration', REGISTRATION);
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"0"');
    expect(created.body).toMatchObject({ form: 'registration', ...REGISTRATION });
    const patched = await call('PATCH', '/acme/configuration/forms/registration', { fields: [{ name: 'username', required: true }] }, { 'if-match': '"0"' });
    expect(patched.status).toBe(200);
    expect(patched.body.fields).toEqual([{ name: 'username', required: true }]);
    expect((await call('PATCH', '/acme/configuration/forms/registration', REGISTRATION, { 'if-match': '"0"' })).status).toBe(412);
    expect((await call('DELETE', '/acme/configuration/forms/registration')).status).toBe(204);
    expect((await call('GET', '/acme/configuration/forms/registration')).status).toBe(404);
    expect((await call('GET', '/acme/configuration/forms/profile')).status).toBe(404);
  });

  it('refuses fields a form cannot show, a form without a required username, bad bounds and patterns', async () => {
    const username = { name: 'username', required: true };
    for (const [form, fields] of [
      ['registration', [username, { name: 'phone', required: false }]],
      ['registration', [{ name: 'email', required: true }]],
      ['registration', [{ name: 'username', required: false }]],
      ['registration', [username, username]],
      ['registration', [{ ...username, pattern: '(' }]],
      ['registration', [{ ...username, min_length: 9, max_length: 3 }]],
      ['registration', [{ ...username, max_length: 5000 }]],
      ['sign-in', [username, { name: 'email', required: false }]],
    ] as const) {
      const res = await call('PUT', `/acme/configuration/forms/${form}`, { fields });
      expect([res.status, fields]).toEqual([400, fields]);
    }
  });
});

describe('the registration endpoint and page apply the same form', () => {
  beforeAll(async () => {
    await call('PUT', '/acme/configuration/forms/registration', REGISTRATION);
  });

  it('the endpoint takes the form\'s fields by its rules (an admin token is not held to them)', async () => {
    const missing = await register({ username: 'grace', password: PASSWORD });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ path: 'email', detail: 'required' }]);
    const faults = await register({ username: 'Gr', password: PASSWORD, email: 'g@example.com', name: 'Grace' });
    expect(faults.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['name', 'username']);
    expect((await register({ username: 'UPPER', password: PASSWORD, email: 'g@example.com' })).body.errors).toEqual([{ path: 'username', detail: 'does not have the expected form' }]);
    expect((await register({ username: 'grace', password: PASSWORD, email: 'grace@example.com', given_name: 'Grace' })).status).toBe(201);
    const admin = await adminCall(server, contract, 'POST', '/acme/users/registrations', await adminToken(server, 'acme'), { username: 'Admin-Made', password: PASSWORD });
    expect(admin.status).toBe(201);
  });

  it('the page shows the form\'s fields with their rules, refuses what the endpoint refuses, then leads back to sign-in', async () => {
    const { browser, html, redirectUri } = await signInPage({ ui_locales: 'fr' });
    const link = /<a href="(register\?interaction=[^"]+)">Créer un compte<\/a>/.exec(html)?.[1];
    expect(link).toBeDefined();
    const page = await (await browser.get(rp.url(`/${link!.replace(/&amp;/g, '&')}`))).text();
    expect(page).toContain('<input id="username" name="username" type="text" autocomplete="username" value="" required minlength="3" maxlength="20" pattern="[a-z0-9]+">');
    expect(page).toContain('<input id="email" name="email" type="email" autocomplete="email" value="" required>');
    expect(page).toContain('Prénom (facultatif)');
    expect(page).not.toContain('id="family_name"');
    const form = Browser.form(page);

    const refused = await browser.post(form.action, { ...form.fields, username: 'Ab', email: 'nope', password: 'short' });
    expect(refused.status).toBe(400);
    const again = await refused.text();
    expect(again).toContain('<p class="error" id="username-fault">Au moins 3 caractères.</p>');
    expect(again).toContain('<p class="error" id="email-fault">Saisissez une adresse e-mail.</p>');
    expect(again).toContain('id="password-fault"');
    expect(again).toContain('value="Ab"');

    const taken = await browser.post(form.action, { ...form.fields, username: 'grace', email: 'other@example.com', password: PASSWORD });
    expect(taken.status).toBe(409);

    const done = await browser.post(form.action, { ...form.fields, username: 'hopper', email: 'hopper@example.com', password: PASSWORD });
    expect(done.status).toBe(200);
    const next = /<a href="(login\?interaction=[^"]+)">/.exec(await done.text())![1];
    const login = await (await browser.get(rp.url(`/${next.replace(/&amp;/g, '&')}`))).text();
    expect(login).toContain('value="hopper"');
    const signIn = Browser.form(login);
    const back = await browser.post(signIn.action, { ...signIn.fields, username: 'hopper', password: PASSWORD });
    expect(back.status).toBe(302);
    expect(back.headers.get('location')!.startsWith(redirectUri)).toBe(true);
  });

  it('is there only where registration is on, and only in the browser of the request', async () => {
    const { html } = await signInPage();
    const link = /<a href="(register\?interaction=[^"]+)">/.exec(html)![1].replace(/&amp;/g, '&');
    // Another browser (no interaction cookie): refused, as a forged cross-site POST would be.
    const stranger = new Browser(contract.fetch);
    expect((await stranger.get(rp.url(`/${link}`))).status).toBe(400);
    const sealed = new URLSearchParams(link.split('?')[1]).get('interaction')!;
    expect((await stranger.post(rp.url('/register'), { interaction: sealed, username: 'eve', email: 'e@example.com', password: PASSWORD })).status).toBe(400);
    expect((await contract.fetch(`${server.issuer('beta')}/register?interaction=x`)).status).toBe(404);
    const beta = await (await rp.browser().follow((await rp.request()).url.replace('/acme/', '/beta/'), server.baseUrl)).text();
    expect(beta).not.toContain('register?');
  });
});

describe('the sign-in form', () => {
  it("marks the username's rules on the page and answers a username they rule out as a wrong one", async () => {
    await call('PUT', '/acme/configuration/forms/sign-in', { fields: [{ name: 'username', required: true, min_length: 5, pattern: '[a-z]+' }] });
    const { browser, html } = await signInPage();
    expect(html).toContain('minlength="5" pattern="[a-z]+"');
    const form = Browser.form(html);
    const refused = await browser.post(form.action, { ...form.fields, username: 'al', password: ALICE_PASSWORD });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Wrong username or password.');
    const ok = await browser.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD });
    expect(ok.status).toBe(302);
    await call('DELETE', '/acme/configuration/forms/sign-in');
  });
});
