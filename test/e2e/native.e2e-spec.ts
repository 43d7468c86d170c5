/**
 * Native apps (OAuth 2.0 for First-Party Applications): the authorization challenge endpoint
 * `/native/authorize` over plain HTTP, the code redeemed at /token through oauth4webapi.
 */
import * as oauth from 'oauth4webapi';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { TOTP } from 'otpauth';
import { adminCall, adminClients, adminToken } from '../support/admin.js';
import { endToEnd } from '../support/suite.js';
import { ALICE_PASSWORD, BOOTSTRAP_YAML, REDIRECT, type TestServer } from '../support/server.js';
import { BOB_PASSWORD, decodeJwt, jsonOf, oauthError, type RelyingParty } from '../support/rp.js';
import { EVENT_STORE, type EventStore } from '../../src/infrastructure/event-store/event-store.port.js';
import { NATIVE_SECOND_FACTOR, type NativeSecondFactor, type SecondFactorChallenge } from '../../src/edge/native/native-second-factor.js';
import { SecondFactors } from '../../src/edge/challenges/second-factors.js';
import { Directory } from '../../src/shared/directory.js';

/** Failed sign-ins of one username before its attempts wait: low, so the test reaches it. */
const USERNAME_FAILURES = 3;

let server: TestServer;
let rp: RelyingParty;
/** `app`: a first-party native app; `app-3p`: registered as native, but not first party (its users must consent in a browser). */
const BOOTSTRAP = BOOTSTRAP_YAML.replace(
  '      - client_id: service',
  `${adminClients().slice(1)}
      - client_id: app
        client_name: Acme App
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code, refresh_token]
        scope: "openid profile offline_access"
        token_endpoint_auth_method: none
        first_party: true
        first_party_native: true
      - client_id: app-3p
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid profile"
        token_endpoint_auth_method: none
        first_party_native: true
      - client_id: service`,
);
const contract = endToEnd(
  (s) => {
    ({ server, rp } = s);
    rp.auths.set('app', () => oauth.None());
  },
  BOOTSTRAP,
  { env: { SIGNIN_USERNAME_FAILURES: String(USERNAME_FAILURES) } },
);

/** The binding the server holds, whose methods a test may replace with a fake second factor. */
let binding: NativeSecondFactor;
let original: Pick<NativeSecondFactor, 'next' | 'verify'>;
beforeAll(() => {
  binding = server.app.get<NativeSecondFactor>(NATIVE_SECOND_FACTOR, { strict: false });
  original = { next: binding.next, verify: binding.verify };
});
afterEach(() => {
  Object.assign(binding, original);
  server.clock.release();
});

interface Pkce {
  verifier: string;
  challenge: string;
}
async function pkce(): Promise<Pkce> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

/** One POST to /native/authorize, its JSON answer (checked against openapi/edge.yaml by the contract fetch). */
async function challenge(form: Record<string, string>, headers: Record<string, string> = {}) {
  return jsonOf(await rp.post('/native/authorize', form, headers));
}

/** The first request of `app` for alice, with PKCE. */
async function first(p: Pkce, extra: Record<string, string> = {}, headers: Record<string, string> = {}) {
  return challenge({ client_id: 'app', response_type: 'code', scope: 'openid profile offline_access', code_challenge: p.challenge, code_challenge_method: 'S256', ...extra }, headers);
}

/** The code redeemed at /token through oauth4webapi: grant_type authorization_code, code_verifier, no redirect_uri (draft §6). */
async function redeem(code: string, verifier: string, dpop?: oauth.DPoPHandle) {
  const res = await oauth.genericTokenEndpointRequest(rp.as, rp.client('app'), oauth.None(), 'authorization_code', { code, code_verifier: verifier }, { ...rp.options, ...(dpop ? { DPoP: dpop } : {}) });
  return oauth.processAuthorizationCodeResponse(rp.as, rp.client('app'), res, { requireIdToken: true });
}

async function dpopKeys() {
  const pair = await generateKeyPair('ES256', { extractable: true });
  return { ...pair, jkt: await calculateJwkThumbprint(await exportJWK(pair.publicKey)) };
}

/** A DPoP proof for a POST to /native/authorize. */
async function proof(keys: { privateKey: CryptoKey; publicKey: CryptoKey }) {
  const now = Math.floor(server.clock.now().getTime() / 1000);
  return new SignJWT({ htm: 'POST', htu: rp.url('/native/authorize'), iat: now, jti: crypto.randomUUID() })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })
    .sign(keys.privateKey);
}

async function events(type: string) {
  const store = server.app.get<EventStore>(EVENT_STORE);
  return (await store.readAll({ maxCount: 100_000 })).filter((e) => e.type === type);
}

/** The LoginFailed events of `app`, once `count` have been recorded (they are recorded after the answer). */
async function loginFailures(count: number) {
  for (let i = 0; i < 200; i++) {
    const found = (await events('LoginFailed')).filter((e) => (e.data as { clientId: string }).clientId === 'app');
    if (found.length >= count) return found;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`fewer than ${count} LoginFailed events of app were recorded`);
}

describe('/native/authorize (OAuth 2.0 for First-Party Applications)', () => {
  it('is announced in discovery as authorization_challenge_endpoint', () => {
    expect(rp.as.authorization_challenge_endpoint).toBe(rp.url('/native/authorize'));
  });

  it('signs alice in with her password and answers a code, redeemed at /token with the code_verifier', async () => {
    const p = await pkce();
    const answer = await first(p, { username: 'alice', password: ALICE_PASSWORD });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const code = answer.body.authorization_code as string;
    const tokens = await redeem(code, p.verifier);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.refresh_token).toBeDefined();
    const claims = decodeJwt(tokens.id_token!).payload;
    expect(claims).toMatchObject({ aud: 'app', iss: rp.issuer });
    const info = await fetch(rp.url('/userinfo'), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await info.json()).toMatchObject({ sub: claims.sub, name: 'Alice Liddell' });
    // Single use, as every code.
    expect(await oauthError(redeem(code, p.verifier))).toMatchObject({ status: 400, error: 'invalid_grant' });
    // Nothing of the code, the password or the verifier is kept in usable form.
    const log = JSON.stringify(await server.app.get<EventStore>(EVENT_STORE).readAll({ maxCount: 100_000 }));
    expect(log).not.toContain(code.split('.')[1]);
    expect(log).not.toContain(ALICE_PASSWORD);
  });

  it('asks for the password with an auth_session when the first request names only the user (login_hint)', async () => {
    const p = await pkce();
    const asked = await first(p, { login_hint: 'alice' });
    expect(asked.status).toBe(403);
    expect(asked.body).toMatchObject({ error: 'insufficient_authorization', challenge_type: 'password' });
    const authSession = asked.body.auth_session as string;
    const done = await challenge({ client_id: 'app', auth_session: authSession, password: ALICE_PASSWORD });
    expect(done.status).toBe(200);
    await redeem(done.body.authorization_code as string, p.verifier);
    // The auth_session is never in the log in usable form.
    expect(JSON.stringify(await server.app.get<EventStore>(EVENT_STORE).readAll({ maxCount: 100_000 }))).not.toContain(authSession);
  });

  it('refuses a replayed auth_session, and one of another client or forged', async () => {
    const asked = await first(await pkce(), { login_hint: 'alice' });
    const authSession = asked.body.auth_session as string;
    expect((await challenge({ client_id: 'app', auth_session: authSession })).body).toMatchObject({ error: 'insufficient_authorization', challenge_type: 'password' });
    const replayed = await challenge({ client_id: 'app', auth_session: authSession, password: ALICE_PASSWORD });
    expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_session' } });
    const other = await first(await pkce(), { login_hint: 'alice' });
    expect(await challenge({ client_id: 'spa', auth_session: other.body.auth_session as string, password: ALICE_PASSWORD })).toMatchObject({ status: 400, body: { error: 'invalid_session' } });
    expect(await challenge({ client_id: 'app', auth_session: `${authSession.slice(0, -4)}AAAA`, password: ALICE_PASSWORD })).toMatchObject({ status: 400, body: { error: 'invalid_session' } });
  });

  it('answers a wrong password and an unknown user alike (invalid_grant), and records both as LoginFailed', async () => {
    const wrong = await first(await pkce(), { username: 'alice', password: 'not her password' });
    const unknown = await first(await pkce(), { username: 'nobody-here', password: 'whatever it is' });
    for (const answer of [wrong, unknown]) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'invalid_grant', error_description: 'the username or password is wrong' });
      expect(answer.body.auth_session).toEqual(expect.any(String));
    }
    const failures = (await loginFailures(2)).map((e) => e.data as { reason: string; userId?: string; usernameHash?: string });
    expect(failures.map((f) => f.reason).sort()).toEqual(['bad_password', 'unknown_user']);
    expect(JSON.stringify(failures)).not.toContain('nobody-here');
    // The auth_session of a wrong answer takes the same step again.
    const retry = await challenge({ client_id: 'app', auth_session: wrong.body.auth_session as string, username: 'alice', password: ALICE_PASSWORD });
    expect(retry.status).toBe(200);
  });

  it('holds up a username after too many failures (the sign-in limits): 429 slow_down with Retry-After', async () => {
    server.clock.freeze();
    for (let i = 0; i < USERNAME_FAILURES; i++) {
      expect((await first(await pkce(), { username: 'bob', password: 'guess number ' + i })).status).toBe(400);
    }
    const held = await first(await pkce(), { username: 'bob', password: BOB_PASSWORD });
    expect(held.status).toBe(429);
    expect(held.body).toMatchObject({ error: 'slow_down' });
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Once the wait is over, the right password passes.
    server.clock.advance(2_000);
    expect((await first(await pkce(), { username: 'bob', password: BOB_PASSWORD })).status).toBe(200);
  });

  it('refuses a client not registered as a first-party native app (unauthorized_client)', async () => {
    const p = await pkce();
    const answer = await challenge({ client_id: 'spa', response_type: 'code', scope: 'openid', code_challenge: p.challenge, code_challenge_method: 'S256', username: 'alice', password: ALICE_PASSWORD });
    expect(answer).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
    expect(await challenge({ client_id: 'nope', response_type: 'code', username: 'alice', password: ALICE_PASSWORD })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('lets the admin API register a first-party native app (first_party_native), and take it back', async () => {
    const admin = await adminToken(server, 'acme');
    const created = await adminCall(server, contract, 'POST', '/acme/configuration/clients', admin, { client_id: 'app-2', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', first_party: true, first_party_native: true, scope: 'openid' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ client_id: 'app-2', first_party_native: true });
    const p = await pkce();
    const form = { client_id: 'app-2', response_type: 'code', scope: 'openid', code_challenge: p.challenge, code_challenge_method: 'S256', username: 'alice', password: ALICE_PASSWORD };
    expect((await challenge(form)).status).toBe(200);
    const patched = await adminCall(server, contract, 'PATCH', '/acme/configuration/clients/app-2', admin, { first_party_native: false }, { 'if-match': created.headers.get('etag')! });
    expect(patched.status).toBe(200);
    expect(patched.body.first_party_native).toBeUndefined();
    expect(await challenge(form)).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
  });

  it('applies the checks of /authorize: PKCE required, response_type code, known scopes', async () => {
    const noPkce = await challenge({ client_id: 'app', response_type: 'code', scope: 'openid', username: 'alice', password: ALICE_PASSWORD });
    expect(noPkce).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'code_challenge is required' } });
    const p = await pkce();
    expect(await first(p, { response_type: 'token', username: 'alice', password: ALICE_PASSWORD })).toMatchObject({ status: 400, body: { error: 'unsupported_response_type' } });
    // Credentials only in the body: a URL gets logged.
    const res = await rp.contract.fetch(`${rp.url('/native/authorize')}?password=x`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: 'app' }) });
    expect((await jsonOf(res)).body).toMatchObject({ error: 'invalid_request' });
  });

  it("takes only the user an id_token_hint names (login_required for another)", async () => {
    const p = await pkce();
    const alice = await redeem((await first(p, { username: 'alice', password: ALICE_PASSWORD })).body.authorization_code as string, p.verifier);
    const asBob = await first(await pkce(), { id_token_hint: alice.id_token!, username: 'bob', password: BOB_PASSWORD });
    expect(asBob).toMatchObject({ status: 400, body: { error: 'login_required' } });
    expect((await first(await pkce(), { id_token_hint: alice.id_token!, username: 'alice', password: ALICE_PASSWORD })).status).toBe(200);
  });

  it('sends a user of a client that is not first party to the browser to consent (redirect_to_web)', async () => {
    const p = await pkce();
    const answer = await challenge({ client_id: 'app-3p', response_type: 'code', scope: 'openid profile', code_challenge: p.challenge, code_challenge_method: 'S256', username: 'alice', password: ALICE_PASSWORD });
    expect(answer).toMatchObject({ status: 403, body: { error: 'redirect_to_web' } });
  });

  it('binds the code and the auth_session to the DPoP key of the first proof; the tokens are DPoP-bound', async () => {
    const keys = await dpopKeys();
    const p = await pkce();
    const asked = await first(p, { login_hint: 'alice' }, { dpop: await proof(keys) });
    expect(asked.status).toBe(403);
    // Draft §9.6.1: the next step must prove the same key.
    const withoutProof = await challenge({ client_id: 'app', auth_session: asked.body.auth_session as string, password: ALICE_PASSWORD });
    expect(withoutProof).toMatchObject({ status: 400, body: { error: 'invalid_dpop_proof' } });
    const again = await first(p, { login_hint: 'alice' }, { dpop: await proof(keys) });
    const otherKey = await challenge({ client_id: 'app', auth_session: again.body.auth_session as string, password: ALICE_PASSWORD }, { dpop: await proof(await dpopKeys()) });
    expect(otherKey).toMatchObject({ status: 400, body: { error: 'invalid_dpop_proof' } });
    const third = await first(p, { login_hint: 'alice' }, { dpop: await proof(keys) });
    const done = await challenge({ client_id: 'app', auth_session: third.body.auth_session as string, password: ALICE_PASSWORD }, { dpop: await proof(keys) });
    expect(done.status).toBe(200);
    const code = done.body.authorization_code as string;
    // RFC 9449 §10: without a proof of the key, the code is worth nothing.
    expect(await oauthError(redeem(code, p.verifier))).toMatchObject({ status: 400, error: 'invalid_grant' });
    const tokens = await redeem(code, p.verifier, oauth.DPoP(rp.client('app'), keys));
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    expect(decodeJwt(tokens.access_token).payload).toMatchObject({ cnf: { jkt: keys.jkt } });
  });
});

describe('/native/authorize with a second factor (a fake TOTP binding of NativeSecondFactor)', () => {
  const secret = new TOTP({ issuer: 'acme', label: 'alice' }).secret;
  const totp = new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 });
  const code = () => totp.generate({ timestamp: server.clock.now().getTime() });

  beforeEach(() => {
    const fake: Pick<NativeSecondFactor, 'next' | 'verify'> = {
      next: (s) => Promise.resolve(s.proven.includes('otp') ? null : { method: 'totp', hint: 'Acme Authenticator' }),
      verify: (_s, c: SecondFactorChallenge, answer) =>
        Promise.resolve(c.method === 'totp' && totp.validate({ token: answer, timestamp: server.clock.now().getTime(), window: 0 }) !== null ? { kind: 'proved', amr: ['otp', 'mfa'] } : { kind: 'wrong' }),
    };
    Object.assign(binding, fake);
  });

  it('asks for the TOTP code after the password, refuses a wrong one, takes the right one, and refuses the spent auth_session', async () => {
    server.clock.freeze();
    const p = await pkce();
    const asked = await first(p, { username: 'alice', password: ALICE_PASSWORD });
    expect(asked.status).toBe(403);
    expect(asked.body).toMatchObject({ error: 'insufficient_authorization', challenge_type: 'otp', otp_method: 'totp', hint: 'Acme Authenticator' });
    const wrongCode = String((Number(code()) + 1) % 1_000_000).padStart(6, '0');
    const wrong = await challenge({ client_id: 'app', auth_session: asked.body.auth_session as string, otp: wrongCode });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'the one-time code is wrong' } });
    const done = await challenge({ client_id: 'app', auth_session: wrong.body.auth_session as string, otp: code() });
    expect(done.status).toBe(200);
    // Each auth_session is spent by its request: the first one cannot take the right code now.
    expect(await challenge({ client_id: 'app', auth_session: asked.body.auth_session as string, otp: code() })).toMatchObject({ status: 400, body: { error: 'invalid_session' } });
    server.clock.release();
    await redeem(done.body.authorization_code as string, p.verifier);
  });

  it('ends the sign-in after five wrong codes', async () => {
    let answer = await first(await pkce(), { username: 'alice', password: ALICE_PASSWORD });
    for (let i = 0; i < 5; i++) {
      answer = await challenge({ client_id: 'app', auth_session: answer.body.auth_session as string, otp: 'abcdef' });
      expect(answer.body).toMatchObject({ error: 'invalid_grant' });
    }
    expect(answer.body.auth_session).toBeUndefined();
  });

  it('expires an auth_session after 300 seconds', async () => {
    server.clock.freeze();
    const asked = await first(await pkce(), { username: 'alice', password: ALICE_PASSWORD });
    server.clock.advance(300_000);
    expect(await challenge({ client_id: 'app', auth_session: asked.body.auth_session as string, otp: code() })).toMatchObject({ status: 400, body: { error: 'invalid_session' } });
  });
});

describe("/native/authorize with the tenant's second factors (the challenges kind)", () => {
  const policy = async (method: string, body?: unknown) => adminCall(server, contract, method, '/acme/configuration/challenges', await adminToken(server, 'acme'), body);
  afterEach(async () => {
    await policy('DELETE');
  });

  it('sends a user who must set up an authenticator app to the browser (redirect_to_web): enrolment shows a QR code and recovery codes', async () => {
    expect((await policy('PUT', { factors: { totp: 'required' } })).status).toBe(201);
    const answer = await first(await pkce(), { username: 'bob', password: BOB_PASSWORD });
    expect(answer).toMatchObject({ status: 403, body: { error: 'redirect_to_web' } });
  });

  it('refuses a user who has no second factor the client accepts (access_denied): bob has no e-mail address for required e-mail codes', async () => {
    expect((await policy('PUT', { factors: { email_otp: 'required' } })).status).toBe(201);
    const answer = await first(await pkce(), { username: 'bob', password: BOB_PASSWORD });
    expect(answer).toMatchObject({ status: 403, body: { error: 'access_denied' } });
  });

  it('honours acr_values (a multi-factor acr asks for a factor the policy leaves optional) and max_age (each sign-in here is fresh)', async () => {
    expect((await policy('PUT', { factors: { totp: 'optional' } })).status).toBe(201);
    server.clock.freeze();
    // bob has no app: optional asks him nothing...
    const plain = await pkce();
    const signedIn = await first(plain, { username: 'bob', password: BOB_PASSWORD, max_age: '0' });
    expect(signedIn.status).toBe(200);
    const tokens = await redeem(signedIn.body.authorization_code as string, plain.verifier);
    // max_age=0: auth_time is the sign-in of this very request (OpenID Connect Core §3.1.2.1).
    const claims = decodeJwt(tokens.id_token!).payload;
    expect(claims).toMatchObject({ amr: ['pwd'], acr: 'urn:authserver:acr:pwd' });
    expect(claims.auth_time).toBe(Math.floor(server.clock.now().getTime() / 1000));
    // ...until the request asks for the multi-factor class: he must set an app up first, in the browser.
    const mfa = await first(await pkce(), { username: 'bob', password: BOB_PASSWORD, acr_values: 'urn:authserver:acr:mfa' });
    expect(mfa).toMatchObject({ status: 403, body: { error: 'redirect_to_web' } });
  });

  it("asks alice for her authenticator app's code after the password; the ID token says what was proven (amr, acr)", async () => {
    server.clock.freeze();
    const factors = server.app.get(SecondFactors, { strict: false });
    const alice = (await server.app.get(Directory, { strict: false }).userByUsername('acme', 'alice'))!;
    const enrolment = await factors.beginEnrolment('acme', alice);
    const app = new TOTP({ secret: enrolment.secret, algorithm: 'SHA1', digits: 6, period: 30 });
    const code = () => app.generate({ timestamp: server.clock.now().getTime() });
    expect((await factors.confirmEnrolment('acme', alice, enrolment.sealedTotpSecret, code(), { correlationId: 'enrolment' })).kind).toBe('proved');
    // The enrolment's step is spent (RFC 6238 §5.2): the sign-in answers with the next one.
    server.clock.advance(30_000);
    expect((await policy('PUT', { factors: { totp: 'optional' } })).status).toBe(201);

    const p = await pkce();
    const asked = await first(p, { username: 'alice', password: ALICE_PASSWORD });
    expect(asked).toMatchObject({ status: 403, body: { error: 'insufficient_authorization', challenge_type: 'otp', otp_method: 'totp' } });
    const wrong = await challenge({ client_id: 'app', auth_session: asked.body.auth_session as string, otp: String((Number(code()) + 1) % 1_000_000).padStart(6, '0') });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const done = await challenge({ client_id: 'app', auth_session: wrong.body.auth_session as string, otp: code() });
    expect(done.status).toBe(200);
    const tokens = await redeem(done.body.authorization_code as string, p.verifier);
    expect(decodeJwt(tokens.id_token!).payload).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'urn:authserver:acr:mfa' });

    // The same code twice is a replay (one step, once), even in a new sign-in.
    const again = await first(await pkce(), { username: 'alice', password: ALICE_PASSWORD });
    expect(await challenge({ client_id: 'app', auth_session: again.body.auth_session as string, otp: code() })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});
