import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import * as OTPAuth from 'otpauth';
import { SMTPServer } from 'smtp-server';
import { ADMIN_BOOTSTRAP, adminCall, adminClients, adminToken, type AdminAnswer } from '../support/admin.js';
import { Browser } from '../support/browser.js';
import { decodeJwt, RelyingParty } from '../support/rp.js';
import { extraTenant, freePort, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

const MFA = 'urn:authserver:acr:mfa';
const PWD = 'urn:authserver:acr:pwd';

/** The mails the loopback SMTP server received: recipient and body. */
const mails: Array<{ to: string; text: string }> = [];
let smtp: SMTPServer;
/** When set, the relay refuses every recipient (550). */
let refuseMail = false;

async function startSmtp(): Promise<string> {
  const port = await freePort();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onRcptTo(address, _session, callback) {
      callback(refuseMail ? Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }) : undefined);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), text: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
  return `smtp://127.0.0.1:${port}`;
}

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd(
  (s) => ({ server, rp } = s),
  async () => {
    // Read by the server's configuration at start-up: the codes go through a real SMTP exchange.
    process.env.SMTP_URL = await startSmtp();
    process.env.MAIL_FROM = 'sign-in@acme.test';
    // gamma: second factors declared by the bootstrap file, in the admin API's own document.
    return `${ADMIN_BOOTSTRAP}${extraTenant('gamma', {}, adminClients())}
    challenges: { factors: { totp: required, email_otp: optional }, clients: { kiosk: { totp: 'off' } } }`;
  },
);

afterAll(async () => {
  delete process.env.SMTP_URL;
  delete process.env.MAIL_FROM;
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<AdminAnswer> {
  return adminCall(server, contract, method, path, await adminToken(server, path.split('/')[1]), body, headers);
}

/** A code of the authenticator app a user set up with `secret` (base32), at the server's time. */
function appCode(secret: string, offsetSeconds = 0): string {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: server.clock.now().getTime() + offsetSeconds * 1000 });
}

const pageForm = (html: string, action: string) => {
  const forms = [...html.matchAll(/<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)];
  const form = forms.find((f) => f[1].endsWith(action));
  if (!form) throw new Error(`no form posting to ${action} in ${html}`);
  return Browser.form(form[0]);
};

/** Starts an authorization in a new browser and types alice's (or `username`'s) password; the browser and the page it lands on. */
async function password(o: { username?: string; password?: string; extra?: Record<string, string> } = {}) {
  const browser = rp.browser();
  const req = await rp.request({ extra: o.extra });
  const login = await browser.follow(req.url, server.baseUrl);
  const form = Browser.form(await login.text());
  const posted = await browser.post(form.action, { ...form.fields, username: o.username ?? 'alice', password: o.password ?? 'correct horse battery staple' });
  return { browser, req, posted };
}

/** The ID token's claims of a flow that ended at the client. */
async function idClaims(req: Awaited<ReturnType<typeof rp.request>>, res: Response) {
  expect(res.status).toBe(302);
  const callback = new URL(res.headers.get('location')!);
  const tokens = await rp.redeem('web', { res, ...req, callback, loginShown: true });
  return decodeJwt(tokens.id_token!).payload;
}

describe('admin API: challenges', () => {
  it('PUT creates (201, ETag) then replaces; PATCH merges (null removes); If-Match; DELETE', async () => {
    expect((await call('GET', '/acme/configuration/challenges')).status).toBe(404);
    const created = await call('PUT', '/acme/configuration/challenges', { factors: { totp: 'optional' }, clients: { spa: { totp: 'off' } } });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"0"');
    expect(created.body).toMatchObject({ factors: { totp: 'optional' }, clients: { spa: { totp: 'off' } } });
    const patched = await call('PATCH', '/acme/configuration/challenges', { factors: { email_otp: 'optional' }, clients: { spa: null } }, { 'if-match': '"0"' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ factors: { totp: 'optional', email_otp: 'optional' }, clients: {} });
    expect((await call('PATCH', '/acme/configuration/challenges', { factors: { totp: 'off' } }, { 'if-match': '"0"' })).status).toBe(412);
    expect((await call('GET', '/beta/configuration/challenges')).status).toBe(404);
    expect((await call('DELETE', '/acme/configuration/challenges')).status).toBe(204);
    expect((await call('GET', '/acme/configuration/challenges')).status).toBe(404);
  });

  it('refuses unknown factors, policies and fields with a problem naming them', async () => {
    for (const bad of [{ factors: { sms: 'required' } }, { factors: { totp: 'always' } }, { factors: {}, clients: { web: { totp: 'maybe' } } }, { factors: {}, clients: { web: 'required' } }, { factors: {}, colour: 1 }, {}]) {
      const res = await call('PUT', '/acme/configuration/challenges', bad);
      expect([res.status, res.headers.get('content-type'), bad]).toEqual([400, expect.stringContaining('application/problem+json'), bad]);
    }
  });
});

describe('sign-in with an authenticator app (TOTP)', () => {
  let secret: string;
  let recoveryCodes: string[];

  beforeAll(() => server.clock.freeze());
  afterAll(() => server.clock.release());

  it('announces the acr values', async () => {
    const meta = (await (await contract.fetch(`${server.issuer()}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(meta.acr_values_supported).toEqual([PWD, MFA]);
  });

  it('a password alone, while no factor is required: acr pwd, amr [pwd]', async () => {
    const { req, posted } = await password();
    const claims = await idClaims(req, posted);
    expect(claims).toMatchObject({ amr: ['pwd'], acr: PWD });
    expect(typeof claims.auth_time).toBe('number');
  });

  it('required: the app is set up after the password (QR code and key), confirmed by a first code; recovery codes shown once', async () => {
    await call('PUT', '/acme/configuration/challenges', { factors: { totp: 'required' } });
    const { browser, req, posted } = await password();
    expect(posted.status).toBe(302);
    expect(posted.headers.get('location')).toMatch(/\/acme\/mfa-enrol\?interaction=/);
    const page = await browser.follow(new URL(posted.headers.get('location')!, server.baseUrl).href, server.baseUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('<svg');
    expect(html).toMatch(/<label for="enrol-code">/);
    secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(html)![1];
    expect(secret).toHaveLength(32);
    const form = pageForm(html, '/mfa-enrol');

    const wrong = await browser.post(form.action, { ...form.fields, code: appCode(secret, 120) });
    expect(wrong.status).toBe(400);
    const wrongHtml = await wrong.text();
    expect(wrongHtml).toContain('role="alert"');

    const confirmed = await browser.post(form.action, { ...form.fields, code: appCode(secret) });
    expect(confirmed.status).toBe(200);
    const recovery = await confirmed.text();
    recoveryCodes = [...recovery.matchAll(/<li><code>([A-Z2-7]{5}-[A-Z2-7]{5})<\/code><\/li>/g)].map((m) => m[1]);
    expect(recoveryCodes).toHaveLength(10);
    expect(browser.cookie('sid') ?? browser.cookies().join(';')).toBeTruthy();
    const next = pageForm(recovery, '/mfa-continue');
    const done = await browser.post(next.action, next.fields);
    expect(await idClaims(req, done)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: MFA });
  });

  it('the next sign-in asks for a code: each step once, the step before and after accepted, none further', async () => {
    const { browser, req, posted } = await password();
    expect(posted.headers.get('location')).toMatch(/\/acme\/mfa\?interaction=/);
    const page = await browser.follow(new URL(posted.headers.get('location')!, server.baseUrl).href, server.baseUrl);
    const form = pageForm(await page.text(), '/mfa');
    // The enrolment's code, again in the same step: refused (RFC 6238 §5.2).
    expect((await browser.post(form.action, { ...form.fields, factor: 'totp', code: appCode(secret) })).status).toBe(400);
    expect((await browser.post(form.action, { ...form.fields, factor: 'totp', code: appCode(secret, 60) })).status).toBe(400);
    const done = await browser.post(form.action, { ...form.fields, factor: 'totp', code: appCode(secret, 30) });
    expect(await idClaims(req, done)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: MFA });
    // That step is spent too, and so is every one before it.
    server.clock.advance(30_000);
    const again = await password();
    const againForm = pageForm(await (await again.browser.follow(new URL(again.posted.headers.get('location')!, server.baseUrl).href, server.baseUrl)).text(), '/mfa');
    expect((await again.browser.post(againForm.action, { ...againForm.fields, factor: 'totp', code: appCode(secret) })).status).toBe(400);
    server.clock.advance(30_000);
    expect((await again.browser.post(againForm.action, { ...againForm.fields, factor: 'totp', code: appCode(secret) })).status).toBe(302);
  });

  it('a recovery code signs in once, instead of a code: amr [pwd, mfa]', async () => {
    const first = await password();
    const form = pageForm(await (await first.browser.follow(new URL(first.posted.headers.get('location')!, server.baseUrl).href, server.baseUrl)).text(), '/mfa');
    const done = await first.browser.post(form.action, { ...form.fields, factor: 'totp', code: recoveryCodes[0].toLowerCase() });
    expect(await idClaims(first.req, done)).toMatchObject({ amr: ['pwd', 'mfa'], acr: MFA });
    const second = await password();
    const form2 = pageForm(await (await second.browser.follow(new URL(second.posted.headers.get('location')!, server.baseUrl).href, server.baseUrl)).text(), '/mfa');
    expect((await second.browser.post(form2.action, { ...form2.fields, factor: 'totp', code: recoveryCodes[0] })).status).toBe(400);
    expect((await second.browser.post(form2.action, { ...form2.fields, factor: 'totp', code: recoveryCodes[1] })).status).toBe(302);
  });

  it('a refreshed ID token says what the sign-in proved, and when (OpenID Connect Core §12.2)', async () => {
    server.clock.advance(30_000);
    const { browser, req, posted } = await password();
    const form = pageForm(await (await browser.follow(new URL(posted.headers.get('location')!, server.baseUrl).href, server.baseUrl)).text(), '/mfa');
    const done = await browser.post(form.action, { ...form.fields, factor: 'totp', code: appCode(secret) });
    expect(done.status).toBe(302);
    const tokens = await rp.redeem('web', { res: done, ...req, callback: new URL(done.headers.get('location')!), loginShown: true });
    const first = decodeJwt(tokens.id_token!).payload;
    expect(first).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: MFA });
    server.clock.advance(120_000);
    const refreshed = await rp.refresh('web', tokens.refresh_token!);
    const claims = decodeJwt(refreshed.id_token!).payload;
    expect(claims).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: MFA, auth_time: first.auth_time });
    expect(claims.iat).toBe((first.iat as number) + 120);
  });

  it('the device grant: the ID token says what the user proved on the device page, and so do its refreshes (RFC 8628)', async () => {
    const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
    const created = await call('POST', '/acme/configuration/clients', { client_id: 'settop', grant_types: [DEVICE_GRANT, 'refresh_token'], token_endpoint_auth_method: 'none', scope: 'openid offline_access' });
    expect(created.status).toBe(201);
    rp.auths.set('settop', () => oauth.None());
    const client = rp.client('settop');
    const started = await oauth.processDeviceAuthorizationResponse(rp.as, client, await oauth.deviceAuthorizationRequest(rp.as, client, rp.auth('settop'), { scope: 'openid offline_access' }, rp.options));

    // The user: the user code, the password, the app's code, then allow.
    server.clock.advance(30_000);
    const browser = rp.browser();
    const codeForm = Browser.form(await (await browser.get(rp.url('/device'))).text());
    const toLogin = await browser.post(codeForm.action, { ...codeForm.fields, user_code: started.user_code });
    const login = Browser.form(await (await browser.follow(new URL(toLogin.headers.get('location')!, rp.issuer).href, server.baseUrl)).text());
    const posted = await browser.post(login.action, { ...login.fields, username: 'alice', password: 'correct horse battery staple' });
    expect(posted.headers.get('location')).toMatch(/\/acme\/mfa\?interaction=/);
    const mfa = pageForm(await (await browser.follow(new URL(posted.headers.get('location')!, server.baseUrl).href, server.baseUrl)).text(), '/mfa');
    const proved = await browser.post(mfa.action, { ...mfa.fields, factor: 'totp', code: appCode(secret) });
    expect(proved.status).toBe(302);
    const confirm = await browser.follow(new URL(proved.headers.get('location')!, rp.issuer).href, server.baseUrl);
    const choice = Browser.form(await confirm.text());
    expect((await browser.post(choice.action, { ...choice.fields, decision: 'allow' })).status).toBe(200);

    const tokens = await oauth.processDeviceCodeResponse(rp.as, client, await oauth.deviceCodeGrantRequest(rp.as, client, rp.auth('settop'), started.device_code, rp.options));
    const first = decodeJwt(tokens.id_token!).payload;
    expect(first).toMatchObject({ aud: 'settop', amr: ['pwd', 'otp', 'mfa'], acr: MFA });
    expect(first.auth_time).toBe(Math.floor(server.clock.now().getTime() / 1000));
    server.clock.advance(60_000);
    const refreshed = await oauth.processRefreshTokenResponse(rp.as, client, await oauth.refreshTokenGrantRequest(rp.as, client, rp.auth('settop'), tokens.refresh_token!, rp.options));
    expect(decodeJwt(refreshed.id_token!).payload).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: MFA, auth_time: first.auth_time });
  });

  it('a per-client override turns the factor off for that client', async () => {
    await call('PATCH', '/acme/configuration/challenges', { clients: { web: { totp: 'off' } } });
    const { req, posted } = await password();
    expect(await idClaims(req, posted)).toMatchObject({ amr: ['pwd'], acr: PWD });
    await call('PATCH', '/acme/configuration/challenges', { clients: null });
  });

  it('acr_values asking for mfa: a password-only session signs in again with a second factor; max_age and auth_time', async () => {
    await call('PUT', '/acme/configuration/challenges', { factors: { totp: 'optional' } });
    // bob has no app: optional asks him nothing...
    const plain = await password({ username: 'bob', password: "bob's long password" });
    expect(await idClaims(plain.req, plain.posted)).toMatchObject({ amr: ['pwd'], acr: PWD });
    // ...until the request asks for mfa: the session (password only) does not do, and he sets one up.
    const req = await rp.request({ extra: { acr_values: `${MFA} ${PWD}` } });
    const res = await plain.browser.follow(req.url, server.baseUrl);
    expect(res.status).toBe(200);
    const form = Browser.form(await res.text());
    const again = await plain.browser.post(form.action, { ...form.fields, username: 'bob', password: "bob's long password" });
    expect(again.headers.get('location')).toMatch(/\/acme\/mfa-enrol\?interaction=/);
    // max_age: a sign-in older than it is asked again; auth_time says when the last one was.
    server.clock.advance(120_000);
    const aged = await rp.request({ extra: { max_age: '60' } });
    expect(await (await plain.browser.follow(aged.url, server.baseUrl)).text()).toContain('name="password"');
  });

  it('keeps no usable secret or code in the log and the views', () => {
    const files = readdirSync(server.dataDir).filter((f) => f.startsWith('authserver.db'));
    const stored = files.map((f) => readFileSync(join(server.dataDir, f)).toString('latin1')).join('\n');
    expect(stored).toContain('TotpEnrolled');
    expect(stored).not.toContain(secret);
    for (const code of recoveryCodes) expect(stored).not.toContain(code.replace('-', ''));
    for (const code of recoveryCodes) expect(stored).not.toContain(code);
  });
});

describe('e-mail one-time codes over SMTP', () => {
  it('sends a six-digit code to the user, accepted once, within its attempts', async () => {
    await call('PUT', '/acme/configuration/challenges', { factors: { totp: 'off', email_otp: 'required' } });
    const { browser, req, posted } = await password({ extra: { ui_locales: 'fr' } });
    expect(posted.headers.get('location')).toMatch(/\/acme\/mfa\?interaction=/);
    const page = await browser.follow(new URL(posted.headers.get('location')!, server.baseUrl).href, server.baseUrl);
    const html = await page.text();
    expect(html).toContain('lang="fr"');
    expect(html).toContain('Envoyer un code par e-mail');
    const send = pageForm(html, '/mfa-email');
    const before = mails.length;
    const sent = await browser.post(send.action, send.fields);
    expect(sent.status).toBe(200);
    expect(mails.length).toBe(before + 1);
    const mail = mails.at(-1)!;
    expect(mail.to).toBe('alice@example.com');
    expect(mail.text).toContain('Subject: Votre code de connexion');
    const code = /est (\d{6})\./.exec(mail.text)![1];
    const form = pageForm(await sent.text(), '/mfa');
    expect(form.fields.factor).toBe('email_otp');
    const wrongCode = code === '000000' ? '111111' : '000000';
    expect((await browser.post(form.action, { ...form.fields, code: wrongCode })).status).toBe(400);
    const done = await browser.post(form.action, { ...form.fields, code });
    expect(await idClaims(req, done)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: MFA });
    expect((await browser.post(form.action, { ...form.fields, code })).status).toBe(400);
  });

  it('a user with an e-mail address proves a code sent there before a required app is set up', async () => {
    const alice = ((await call('GET', '/acme/configuration/users?username=alice')).body as { items: Array<{ id: string }> }).items[0].id;
    expect((await call('DELETE', `/acme/configuration/users/${alice}/second-factors`)).status).toBe(204);
    await call('PUT', '/acme/configuration/challenges', { factors: { totp: 'required', email_otp: 'optional' } });
    const { browser, req, posted } = await password();
    expect(posted.headers.get('location')).toMatch(/\/acme\/mfa\?interaction=/);
    const html = await (await browser.follow(new URL(posted.headers.get('location')!, server.baseUrl).href, server.baseUrl)).text();
    const send = pageForm(html, '/mfa-email');
    // The password alone sets up no app.
    const early = await browser.get(`${server.issuer()}/mfa-enrol?interaction=${encodeURIComponent(send.fields.interaction)}`);
    expect([early.status, await early.text()]).toEqual([400, expect.stringContaining('no authenticator app is being set up in this sign-in')]);
    const sent = await browser.post(send.action, send.fields);
    const code = /is (\d{6})\./.exec(mails.at(-1)!.text)![1];
    const form = pageForm(await sent.text(), '/mfa');
    const proved = await browser.post(form.action, { ...form.fields, code });
    expect(proved.status).toBe(302);
    expect(proved.headers.get('location')).toMatch(/\/acme\/mfa-enrol\?interaction=/);
    const setup = await (await browser.follow(new URL(proved.headers.get('location')!, server.baseUrl).href, server.baseUrl)).text();
    const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(setup)![1];
    const enrol = pageForm(setup, '/mfa-enrol');
    const codes = await browser.post(enrol.action, { ...enrol.fields, code: appCode(secret) });
    expect(codes.status).toBe(200);
    const next = pageForm(await codes.text(), '/mfa-continue');
    expect(await idClaims(req, await browser.post(next.action, next.fields))).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: MFA });
    await call('PUT', '/acme/configuration/challenges', { factors: { totp: 'off', email_otp: 'required' } });
  });

  it('a relay that refuses the mail: 503 and the page again, no crash', async () => {
    const { browser, posted } = await password({ username: 'alice' });
    const page = await browser.follow(new URL(posted.headers.get('location')!, server.baseUrl).href, server.baseUrl);
    const send = pageForm(await page.text(), '/mfa-email');
    refuseMail = true;
    try {
      const sent = await browser.post(send.action, send.fields);
      expect(sent.status).toBe(503);
      expect(await sent.text()).toContain('The e-mail could not be sent.');
    } finally {
      refuseMail = false;
    }
  });

  it('wrong codes count towards the sign-in limits of the username: 429 with Retry-After', async () => {
    const { browser, posted } = await password({ username: 'alice' });
    const page = await browser.follow(new URL(posted.headers.get('location')!, server.baseUrl).href, server.baseUrl);
    const send = pageForm(await page.text(), '/mfa-email');
    const sent = await browser.post(send.action, send.fields);
    const form = pageForm(await sent.text(), '/mfa');
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await browser.post(form.action, { ...form.fields, code: 'abcdef' })).status);
    expect(statuses).toContain(429);
    const limited = await browser.post(form.action, { ...form.fields, code: 'abcdef' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('bootstrap file: challenges', () => {
  it('are applied through the admin API\'s command: the admin API shows them, and a sign-in asks for them', async () => {
    const shown = await call('GET', '/gamma/configuration/challenges');
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ factors: { totp: 'required', email_otp: 'optional' }, clients: { kiosk: { totp: 'off' } } });
    const gamma = await RelyingParty.discover(server, contract, 'gamma');
    const browser = gamma.browser();
    const login = await browser.follow((await gamma.request({ scope: 'openid' })).url, server.baseUrl);
    const form = Browser.form(await login.text());
    const posted = await browser.post(form.action, { ...form.fields, username: 'alice', password: 'correct horse battery staple' });
    expect(posted.status).toBe(302);
    expect(posted.headers.get('location')).toMatch(/\/gamma\/mfa-enrol\?interaction=/);
  });
});
