/**
 * Passkeys (WebAuthn) as a second factor over plain HTTP, with an authenticator in the test
 * process (test/support/soft-authenticator.ts; the browser test uses Chromium's virtual one):
 * registration after the password, sign-in with a passkey, `amr`/`acr` in the ID token; the
 * refusals (a replayed or foreign challenge, another user's credential, a tampered assertion, a
 * counter gone back) counted by the sign-in limits; /native/authorize sending a passkey-only
 * user to the browser; the admin read and reset of a user's second factors, in the audit.
 */
import * as oauth from 'oauth4webapi';
import * as OTPAuth from 'otpauth';
import { ADMIN_BOOTSTRAP, adminCall, adminToken, type AdminAnswer } from '../support/admin.js';
import { Browser } from '../support/browser.js';
import { decodeJwt, jsonOf, type RelyingParty } from '../support/rp.js';
import { REDIRECT, type TestServer } from '../support/server.js';
import { type CredentialJson, type PasskeyOptions, SoftAuthenticator } from '../support/soft-authenticator.js';
import { endToEnd } from '../support/suite.js';

const MFA = 'urn:authserver:acr:mfa';
const BOB_PASSWORD = "bob's long password";

let server: TestServer;
let rp: RelyingParty;
const BOOTSTRAP = ADMIN_BOOTSTRAP.replace(
  '      - client_id: service',
  `      - client_id: app
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid profile"
        token_endpoint_auth_method: none
        first_party: true
        first_party_native: true
      - client_id: service`,
);
const contract = endToEnd((s) => {
  ({ server, rp } = s);
  rp.auths.set('app', () => oauth.None());
}, BOOTSTRAP);

async function call(method: string, path: string, body?: unknown): Promise<AdminAnswer> {
  return adminCall(server, contract, method, path, await adminToken(server, 'acme'), body);
}

const ENTITIES: Record<string, string> = { quot: '"', apos: "'", lt: '<', gt: '>', amp: '&' };
const unescape = (s: string) => s.replace(/&(?:#(\d+)|(\w+));/g, (all, n: string | undefined, name: string | undefined) => (n ? String.fromCharCode(Number(n)) : (ENTITIES[name!] ?? all)));

/** The passkey form of a page: where it posts, its hidden fields, and the WebAuthn options it carries. */
function passkeyForm(html: string): { action: string; fields: Record<string, string>; options: PasskeyOptions } {
  const form = /<form id="passkey-form"[^>]*>[\s\S]*?<\/form>/.exec(html)?.[0];
  if (!form) throw new Error(`no passkey form in ${html}`);
  const options = JSON.parse(unescape(/data-options="([^"]*)"/.exec(form)![1])) as PasskeyOptions;
  return { ...Browser.form(form), options };
}

/** A new browser through the password, to the page it is sent to (the location's path and the page). */
async function password(username = 'alice', pass = 'correct horse battery staple', extra?: Record<string, string>) {
  const browser = rp.browser();
  const req = await rp.request({ extra });
  const login = await browser.follow(req.url, server.baseUrl);
  const form = Browser.form(await login.text());
  const posted = await browser.post(form.action, { ...form.fields, username, password: pass });
  expect(posted.status).toBe(302);
  const location = new URL(posted.headers.get('location')!, server.baseUrl);
  const page = await browser.follow(location.href, server.baseUrl);
  return { browser, req, path: location.pathname, html: await page.text(), status: page.status };
}

/** Posts the credential with the form's fields. */
async function answer(browser: Browser, form: { action: string; fields: Record<string, string> }, credential: CredentialJson | string) {
  return browser.post(form.action, { ...form.fields, credential: typeof credential === 'string' ? credential : JSON.stringify(credential) });
}

/** The hidden `interaction` field of the first form on a page. */
const interactionOf = (html: string) => unescape(/name="interaction" value="([^"]*)"/.exec(html)![1]);

/** A code of the authenticator app set up with `secret` (base32), at the server's time. */
function appCode(secret: string): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: server.clock.now().getTime() });
}

async function idClaims(req: Awaited<ReturnType<typeof rp.request>>, res: Response) {
  expect(res.status).toBe(302);
  const tokens = await rp.redeem('web', { res, ...req, callback: new URL(res.headers.get('location')!), loginShown: true });
  return decodeJwt(tokens.id_token!).payload;
}

describe('passkeys as a second factor', () => {
  let alice: SoftAuthenticator;
  let bob: SoftAuthenticator;
  let aliceId: string;
  let recovery: string[];

  beforeAll(async () => {
    alice = new SoftAuthenticator(new URL(server.issuer()).origin);
    bob = new SoftAuthenticator(new URL(server.issuer()).origin);
    expect((await call('PUT', '/acme/configuration/challenges', { factors: { webauthn: 'required' } })).status).toBe(201);
    const users = await call('GET', '/acme/configuration/users?username=alice');
    aliceId = (users.body as { items: Array<{ id: string }> }).items[0].id;
  });

  it('takes webauthn in the challenges kind, per tenant and per client, with the same policies', async () => {
    const bad = await call('PUT', '/acme/configuration/challenges', { factors: { webauthn: 'always' } });
    expect([bad.status, JSON.stringify(bad.body)]).toEqual([400, expect.stringContaining('webauthn')]);
    const res = await call('GET', '/acme/configuration/challenges');
    expect(res.body).toMatchObject({ factors: { webauthn: 'required' } });
  });

  it('registers a passkey after the password (RP ID and origin the issuer\'s), then signs in: amr pwd hwk mfa', async () => {
    const { browser, req, path, html } = await password();
    expect(path).toBe('/acme/mfa-passkey-enrol');
    expect(html).toContain('<script src="assets/passkey.js"></script>');
    const form = passkeyForm(html);
    const options = form.options as unknown as PasskeyOptions & { rp: { id: string }; user: { name: string }; attestation: string };
    expect(options.rp.id).toBe('127.0.0.1');
    expect(options.user.name).toBe('alice');
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const registered = await answer(browser, form, alice.create(options));
    // No app and no recovery codes yet: ten codes, shown once, then on to the client.
    expect(registered.status).toBe(200);
    const page = await registered.text();
    recovery = [...page.matchAll(/<li><code>([A-Z2-7]{5}-[A-Z2-7]{5})<\/code><\/li>/g)].map((m) => m[1]);
    expect(recovery).toHaveLength(10);
    const next = Browser.form(page);
    expect(next.action).toMatch(/\/acme\/mfa-continue$/);
    const done = await browser.post(next.action, next.fields);
    expect(await idClaims(req, done)).toMatchObject({ amr: ['pwd', 'hwk', 'mfa'], acr: MFA });
  });

  it('a recovery code stands in for a lost passkey, once', async () => {
    const { browser, req, html } = await password();
    expect(html).toContain('<input type="hidden" name="factor" value="recovery_code">');
    const form = /<form method="post" action="([^"]*)">\s*<input type="hidden" name="interaction" value="([^"]*)">\s*<input type="hidden" name="factor" value="recovery_code">/.exec(html)!;
    const fields = { interaction: unescape(form[2]), factor: 'recovery_code' };
    expect((await browser.post(unescape(form[1]), { ...fields, code: 'AAAAA-AAAAA' })).status).toBe(400);
    const done = await browser.post(unescape(form[1]), { ...fields, code: recovery[0].toLowerCase() });
    expect(await idClaims(req, done)).toMatchObject({ amr: ['pwd', 'mfa'], acr: MFA });
    const again = await password();
    const spent = /<form method="post" action="([^"]*)">\s*<input type="hidden" name="interaction" value="([^"]*)">\s*<input type="hidden" name="factor" value="recovery_code">/.exec(again.html)!;
    expect((await again.browser.post(unescape(spent[1]), { interaction: unescape(spent[2]), factor: 'recovery_code', code: recovery[0] })).status).toBe(400);
  });

  it('signs in again with the passkey on the mfa page', async () => {
    const { browser, req, path, html } = await password();
    expect(path).toBe('/acme/mfa');
    const form = passkeyForm(html);
    expect((form.options as unknown as { allowCredentials: Array<{ id: string }> }).allowCredentials.map((c) => c.id)).toEqual(alice.credentialIds());
    const done = await answer(browser, form, alice.get(form.options));
    expect(await idClaims(req, done)).toMatchObject({ amr: ['pwd', 'hwk', 'mfa'], acr: MFA });
  });

  it('serves the page script as a file, under a CSP without inline script', async () => {
    const res = await contract.fetch(`${server.issuer()}/assets/passkey.js`, {});
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-type')).toContain('text/javascript');
    expect(await res.text()).toContain('navigator.credentials.get');
    const { browser } = await password();
    const page = await browser.get(`${server.issuer()}/mfa-passkey-enrol?interaction=x`);
    expect(page.status).toBe(400);
  });

  it('refuses a challenge answered twice: each is used once, right or wrong', async () => {
    const { browser, html } = await password();
    const first = passkeyForm(html);
    const wrong = await answer(browser, first, 'not json');
    expect(wrong.status).toBe(400);
    const next = await wrong.text();
    expect(next).toContain('The passkey could not be verified.');
    // A right signature over the first page's challenge, posted with that page's request: spent already.
    const replay = await answer(browser, first, alice.get(first.options));
    expect(replay.status).toBe(400);
    // The page shown after the refusal carries a new challenge, which works.
    const second = passkeyForm(await replay.text());
    expect(second.options.challenge).not.toBe(first.options.challenge);
    expect((await answer(browser, second, alice.get(second.options))).status).toBe(302);
  });

  it('refuses an assertion over the challenge of another sign-in (foreign challenge)', async () => {
    const mine = await password();
    const theirs = await password();
    const form = passkeyForm(mine.html);
    const foreign = await answer(mine.browser, form, alice.get(passkeyForm(theirs.html).options));
    expect(foreign.status).toBe(400);
    expect(await foreign.text()).toContain('role="alert">The passkey could not be verified.');
  });

  it("refuses another user's passkey", async () => {
    const enrol = await password('bob', BOB_PASSWORD);
    expect(enrol.path).toBe('/acme/mfa-passkey-enrol');
    const form = passkeyForm(enrol.html);
    expect((await answer(enrol.browser, form, bob.create(form.options))).status).toBe(200);
    const { browser, html } = await password();
    const page = passkeyForm(html);
    const res = await answer(browser, page, bob.get(page.options));
    expect(res.status).toBe(400);
  });

  it('refuses a tampered assertion: signature, authenticator data, origin', async () => {
    const { browser, html } = await password();
    let form = passkeyForm(html);
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, 'base64url');
      bytes[bytes.length - 1] ^= 1;
      return bytes.toString('base64url');
    };
    const tampered: Array<(c: CredentialJson) => CredentialJson> = [
      (c) => ({ ...c, response: { ...c.response, signature: flip(c.response.signature as string) } }),
      (c) => ({ ...c, response: { ...c.response, authenticatorData: flip(c.response.authenticatorData as string) } }),
    ];
    for (const change of tampered) {
      const res = await answer(browser, form, change(alice.get(form.options)));
      expect(res.status).toBe(400);
      form = passkeyForm(await res.text());
    }
    const phished = await answer(browser, form, alice.get(form.options, undefined, { origin: 'https://login.evil.example' }));
    expect(phished.status).toBe(400);
    form = passkeyForm(await phished.text());
    // A right one still works: nothing above spent the passkey.
    expect((await answer(browser, form, alice.get(form.options))).status).toBe(302);
  });

  it('refuses an answer past the challenge\'s 300 s, within the sign-in\'s ten minutes', async () => {
    const { browser, html } = await password();
    const form = passkeyForm(html);
    server.clock.advance(301_000);
    const late = await answer(browser, form, alice.get(form.options));
    expect(late.status).toBe(400);
    const fresh = passkeyForm(await late.text());
    expect((await answer(browser, fresh, alice.get(fresh.options))).status).toBe(302);
  });

  it('refuses a counter that went back (a cloned authenticator)', async () => {
    const { browser, html } = await password();
    const form = passkeyForm(html);
    const res = await answer(browser, form, alice.get(form.options, undefined, { counter: 1 }));
    expect(res.status).toBe(400);
  });

  it('wrong answers count towards the sign-in limits: 429 with Retry-After', async () => {
    const { browser, html } = await password();
    let form = passkeyForm(html);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await answer(browser, form, bob.get(form.options));
      statuses.push(res.status);
      if (res.status === 429) expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      form = passkeyForm(await res.text());
    }
    expect(statuses.slice(0, 5)).toEqual([400, 400, 400, 400, 400]);
    expect(statuses).toContain(429);
    // The limits wait; past the wait, the right passkey signs in (a success clears them).
    server.clock.advance(20 * 60_000);
    const again = await password();
    const fresh = passkeyForm(again.html);
    expect((await answer(again.browser, fresh, alice.get(fresh.options))).status).toBe(302);
  });

  it('records the refusals and the passkeys on the user\'s stream, never a private key', async () => {
    const audit = await adminCall(server, contract, 'GET', '/acme/configuration/audit/events?type=PasskeyRegistered,PasskeyUsed,SecondFactorFailed', await adminToken(server, 'acme'));
    const events = (audit.body as { items: Array<{ type: string; data: Record<string, unknown> }> }).items;
    const registered = events.filter((e) => e.type === 'PasskeyRegistered' && e.data.userId === aliceId);
    expect(registered).toHaveLength(1);
    expect(Object.keys(registered[0].data).sort()).toEqual(['counter', 'credentialId', 'multiDevice', 'publicKey', 'recoveryCodeHashes', 'tenantId', 'transports', 'userId']);
    expect(JSON.stringify(events)).not.toContain(recovery[1]);
    expect(events.some((e) => e.type === 'SecondFactorFailed' && e.data.factor === 'webauthn')).toBe(true);
    expect(events.some((e) => e.type === 'PasskeyUsed')).toBe(true);
  });

  it('/native/authorize: a user whose only factor is a passkey goes to the browser (redirect_to_web)', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const res = await rp.post('/native/authorize', {
      client_id: 'app',
      response_type: 'code',
      scope: 'openid',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      username: 'alice',
      password: 'correct horse battery staple',
    });
    expect(await jsonOf(res)).toMatchObject({ status: 403, body: { error: 'redirect_to_web' } });
  });

  describe('admin: a user\'s second factors', () => {
    it('reads which factors a user has, without a secret', async () => {
      const res = await call('GET', `/acme/configuration/users/${aliceId}/second-factors`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ totp: false, recovery_codes: 9, passkeys: [{ credential_id: alice.credentialIds()[0], multi_device: false, transports: ['internal'] }] });
      expect((await call('GET', '/acme/configuration/users/nobody/second-factors')).status).toBe(404);
      const readOnly = await adminToken(server, 'acme', 'central:read');
      expect((await adminCall(server, contract, 'DELETE', `/acme/configuration/users/${aliceId}/second-factors`, readOnly)).status).toBe(403);
    });

    it('a reset removes them, with the administrator in the audit; the next sign-in registers a passkey again', async () => {
      expect((await call('DELETE', `/acme/configuration/users/${aliceId}/second-factors`)).status).toBe(204);
      expect((await call('GET', `/acme/configuration/users/${aliceId}/second-factors`)).body).toEqual({ totp: false, recovery_codes: 0, passkeys: [] });
      const audit = await adminCall(server, contract, 'GET', '/acme/configuration/audit/events?type=SecondFactorsReset', await adminToken(server, 'acme'));
      const [reset] = (audit.body as { items: Array<{ data: Record<string, unknown>; metadata: Record<string, unknown> }> }).items;
      expect(reset.data).toMatchObject({ userId: aliceId, totp: false, passkeys: 1 });
      expect(reset.metadata.actor).toMatch(/admin/);
      // Nothing left: a second reset records nothing.
      expect((await call('DELETE', `/acme/configuration/users/${aliceId}/second-factors`)).status).toBe(204);
      const after = await adminCall(server, contract, 'GET', '/acme/configuration/audit/events?type=SecondFactorsReset', await adminToken(server, 'acme'));
      expect((after.body as { items: unknown[] }).items).toHaveLength(1);

      const { browser, html, path } = await password();
      expect(path).toBe('/acme/mfa-passkey-enrol');
      // Nothing is left: the sign-in registers a passkey again, with new recovery codes.
      const form = passkeyForm(html);
      const fresh = new SoftAuthenticator(new URL(server.issuer()).origin);
      const registered = await answer(browser, form, fresh.create(form.options));
      expect([registered.status, await registered.text()]).toEqual([200, expect.stringContaining('id="recovery-codes"')]);
    });
  });

  describe('a required factor the user lacks, when they have another', () => {
    let bobId: string;

    beforeAll(async () => {
      server.clock.freeze();
      bobId = ((await call('GET', '/acme/configuration/users?username=bob')).body as { items: Array<{ id: string }> }).items[0].id;
    });
    afterAll(() => server.clock.release());

    /** Sets up an app for `username` through the sign-in (the policy asks for one); its secret. */
    async function setUpApp(username: string, pass: string): Promise<string> {
      const setup = await password(username, pass);
      expect(setup.path).toBe('/acme/mfa-enrol');
      const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(setup.html)![1];
      const form = Browser.form(setup.html);
      expect((await setup.browser.post(form.action, { ...form.fields, code: appCode(secret) })).status).toBe(200);
      server.clock.advance(30_000);
      return secret;
    }

    it('an app user asked for a passkey proves the app first; the password alone reaches no registration', async () => {
      expect((await call('DELETE', `/acme/configuration/users/${bobId}/second-factors`)).status).toBe(204);
      expect((await call('PUT', '/acme/configuration/challenges', { factors: { totp: 'required' } })).status).toBe(200);
      const secret = await setUpApp('bob', BOB_PASSWORD);

      expect((await call('PUT', '/acme/configuration/challenges', { factors: { totp: 'required', webauthn: 'required' } })).status).toBe(200);
      const { browser, req, path, html } = await password('bob', BOB_PASSWORD);
      expect(path).toBe('/acme/mfa');
      expect(html).not.toContain('id="passkey-form"');
      // The sign-in the password opened registers nothing: neither the page nor its answer.
      const passwordOnly = interactionOf(html);
      const page = await browser.get(`${server.issuer()}/mfa-passkey-enrol?interaction=${encodeURIComponent(passwordOnly)}`);
      expect([page.status, await page.text()]).toEqual([400, expect.stringContaining('no passkey is being registered in this sign-in')]);
      const forged = await browser.post(`${server.issuer()}/mfa-passkey-enrol`, { interaction: passwordOnly, credential: '{}' });
      expect([forged.status, await forged.text()]).toEqual([400, expect.stringContaining('no passkey is being registered in this sign-in')]);
      expect((await call('GET', `/acme/configuration/users/${bobId}/second-factors`)).body).toMatchObject({ totp: true, passkeys: [] });

      // The app's code: on to the registration, which completes the sign-in.
      const code = Browser.form(/<form method="post" action="[^"]*\/mfa">[\s\S]*?<\/form>/.exec(html)![0]);
      const proved = await browser.post(code.action, { ...code.fields, factor: 'totp', code: appCode(secret) });
      expect(proved.status).toBe(302);
      const location = new URL(proved.headers.get('location')!, server.baseUrl);
      expect(location.pathname).toBe('/acme/mfa-passkey-enrol');
      const form = passkeyForm(await (await browser.follow(location.href, server.baseUrl)).text());
      const key = new SoftAuthenticator(new URL(server.issuer()).origin);
      const registered = await answer(browser, form, key.create(form.options));
      expect(await idClaims(req, registered)).toMatchObject({ amr: ['pwd', 'otp', 'hwk', 'mfa'], acr: MFA });
      expect((await call('GET', `/acme/configuration/users/${bobId}/second-factors`)).body).toMatchObject({ totp: true, passkeys: [{ credential_id: key.credentialIds()[0] }] });
    });

    it('/native/authorize sends an app user who must register a passkey to the browser, without asking for a code', async () => {
      expect((await call('DELETE', `/acme/configuration/users/${bobId}/second-factors`)).status).toBe(204);
      expect((await call('PUT', '/acme/configuration/challenges', { factors: { totp: 'required' } })).status).toBe(200);
      await setUpApp('bob', BOB_PASSWORD);
      expect((await call('PUT', '/acme/configuration/challenges', { factors: { totp: 'required', webauthn: 'required' } })).status).toBe(200);
      const verifier = oauth.generateRandomCodeVerifier();
      const res = await rp.post('/native/authorize', {
        client_id: 'app',
        response_type: 'code',
        scope: 'openid',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        username: 'bob',
        password: BOB_PASSWORD,
      });
      expect(await jsonOf(res)).toMatchObject({ status: 403, body: { error: 'redirect_to_web' } });
    });

    it('a passkey user asked for an app proves the passkey first, then sets up the app', async () => {
      const aliceKey = new SoftAuthenticator(new URL(server.issuer()).origin);
      expect((await call('DELETE', `/acme/configuration/users/${aliceId}/second-factors`)).status).toBe(204);
      expect((await call('PUT', '/acme/configuration/challenges', { factors: { webauthn: 'required' } })).status).toBe(200);
      const first = await password();
      const enrol = passkeyForm(first.html);
      expect((await answer(first.browser, enrol, aliceKey.create(enrol.options))).status).toBe(200);

      expect((await call('PUT', '/acme/configuration/challenges', { factors: { totp: 'required', webauthn: 'optional' } })).status).toBe(200);
      const { browser, req, path, html } = await password();
      expect(path).toBe('/acme/mfa');
      const early = await browser.get(`${server.issuer()}/mfa-enrol?interaction=${encodeURIComponent(interactionOf(html))}`);
      expect([early.status, await early.text()]).toEqual([400, expect.stringContaining('no authenticator app is being set up in this sign-in')]);
      const form = passkeyForm(html);
      const proved = await answer(browser, form, aliceKey.get(form.options));
      expect(proved.status).toBe(302);
      const location = new URL(proved.headers.get('location')!, server.baseUrl);
      expect(location.pathname).toBe('/acme/mfa-enrol');
      const setup = await (await browser.follow(location.href, server.baseUrl)).text();
      const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(setup)![1];
      const enrolForm = Browser.form(setup);
      const codes = await browser.post(enrolForm.action, { ...enrolForm.fields, code: appCode(secret) });
      expect(codes.status).toBe(200);
      const next = Browser.form(await codes.text());
      expect(await idClaims(req, await browser.post(next.action, next.fields))).toMatchObject({ amr: ['pwd', 'hwk', 'otp', 'mfa'], acr: MFA });
    });
  });
});
