import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import { refreshTokenDocument, tokenHistory } from '../support/audit.js';
import { Browser } from '../support/browser.js';
import { ContractFetch } from '../support/contract-fetch.js';
import { ALICE_PASSWORD, REDIRECT, SERVICE_SECRET, startTestServer, type TestServer, WEB_SECRET } from '../support/server.js';

let server: TestServer;
const contract = new ContractFetch();

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  expect(contract.violations).toEqual([]);
});

async function discover(clientId = 'web', secret: string | undefined = WEB_SECRET): Promise<oidc.Configuration> {
  const auth = secret ? oidc.ClientSecretBasic(secret) : oidc.None();
  const config = await oidc.discovery(new URL(server.issuer()), clientId, secret ? { client_secret: secret } : {}, auth, { execute: [oidc.allowInsecureRequests] });
  config[oidc.customFetch] = contract.fetch;
  return config;
}

/** Runs the browser part of the code flow: authorize, the HTML login form, back to the client with a code. */
async function signIn(config: oidc.Configuration, browser: Browser, extra: Record<string, string> = {}, password = ALICE_PASSWORD) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid profile email offline_access',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  let res = await browser.follow(url.href, server.baseUrl);
  if (res.status === 200 && (await res.clone().text()).includes('name="password"')) {
    const form = Browser.form(await res.text());
    res = await browser.post(form.action, { ...form.fields, username: 'alice', password });
  }
  return { res, verifier, state, nonce };
}

describe('token lifecycle through openid-client', () => {
  it('signs in with code + PKCE, reads userinfo, rotates the refresh token, introspects, revokes and logs out, all in the event log', async () => {
    const config = await discover();
    const browser = new Browser();
    const { res, verifier, state, nonce } = await signIn(config, browser);
    expect(res.status).toBe(302);
    const callback = new URL(res.headers.get('location')!);
    expect(callback.searchParams.get('iss')).toBe(server.issuer());
    expect(browser.cookie('sid')).toBeDefined();

    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.refresh_token).toBeDefined();
    const idClaims = tokens.claims()!;
    expect(idClaims).toMatchObject({ iss: server.issuer(), aud: 'web', nonce });
    expect(typeof idClaims.sid).toBe('string');
    expect(typeof idClaims.auth_time).toBe('number');

    const [header, payload] = tokens.access_token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toMatchObject({ typ: 'at+jwt', alg: 'ES256' });
    expect(payload).toMatchObject({ iss: server.issuer(), sub: idClaims.sub, client_id: 'web', scope: 'openid profile email offline_access' });

    const info = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
    expect(info).toEqual({ sub: idClaims.sub, name: 'Alice Liddell', given_name: 'Alice', family_name: 'Liddell', updated_at: expect.any(Number), email: 'alice@example.com', email_verified: true });

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    // OpenID Connect Core §12.2: the same iss, sub, aud and sign-in as the first ID token.
    expect(refreshed.claims()).toMatchObject({ iss: idClaims.iss, sub: idClaims.sub, aud: idClaims.aud, auth_time: idClaims.auth_time, sid: idClaims.sid });
    expect((await oidc.tokenIntrospection(config, refreshed.access_token)).active).toBe(true);
    expect(await oidc.tokenIntrospection(config, refreshed.refresh_token!, { token_type_hint: 'refresh_token' })).toMatchObject({ active: true, token_type: 'refresh_token', client_id: 'web', username: 'alice', sid: idClaims.sid });
    expect((await oidc.tokenIntrospection(config, tokens.refresh_token!)).active).toBe(false);

    await oidc.tokenRevocation(config, refreshed.access_token);
    expect((await oidc.tokenIntrospection(config, refreshed.access_token)).active).toBe(false);
    expect((await oidc.tokenIntrospection(config, refreshed.refresh_token!)).active).toBe(true);

    const logout = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'http://127.0.0.1:9999/bye', state: 'after' });
    // A link proves nothing of who sent it: the user confirms.
    const asked = await browser.get(logout.href);
    await contract.check(logout, 'GET', asked.clone());
    expect(asked.status).toBe(200);
    const confirm = Browser.form(await asked.text());
    const out = await browser.post(confirm.action, confirm.fields);
    expect(out.status).toBe(302);
    expect(out.headers.get('location')).toBe('http://127.0.0.1:9999/bye?state=after');
    expect(browser.cookie('sid')).toBeUndefined();
    expect((await oidc.tokenIntrospection(config, refreshed.refresh_token!)).active).toBe(false);
    await expect(oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub)).rejects.toThrow();

    const history = await tokenHistory(server, { sessionId: idClaims.sid as string });
    expect(history.map((h) => h.type)).toEqual([
      'SessionStarted',
      'UserAuthenticated',
      'CodeIssued',
      'CodeRedeemed',
      'AccessTokenIssued',
      'RefreshTokenIssued',
      'RefreshRotated',
      'AccessTokenIssued',
      'TokenRevoked',
      'SessionRevoked',
    ]);
    // The subject's history holds the same events, the ends included: every session event names its user.
    const bySubject = await tokenHistory(server, { sub: idClaims.sub });
    expect(bySubject.filter((h) => h.data.sessionId === idClaims.sid).map((h) => h.type)).toEqual(history.map((h) => h.type));
    // The client's history too: the session's end names the grants it ended, with their clients.
    const byClient = await tokenHistory(server, { clientId: 'web' });
    const ofSession = byClient.filter((h) => h.data.sessionId === idClaims.sid);
    expect(ofSession.map((h) => h.type)).toEqual(history.map((h) => h.type).filter((t) => t !== 'SessionStarted' && t !== 'UserAuthenticated'));
    expect(ofSession.at(-1)!.data.grants).toEqual([{ grantId: expect.any(String), clientId: 'web' }]);
    // The client's copy of the logout says nothing of where the user was.
    expect(ofSession.at(-1)).not.toHaveProperty('sourceIp');
    expect(ofSession.at(-1)).not.toHaveProperty('userAgent');
    // Each token issued is on record with how it was obtained and the key that signed it, the
    // ID token that came with it included: after a key's compromise, what it signed is known.
    const kid = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString()).kid as string;
    const jti = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).jti as string;
    const issued = history.filter((h) => h.type === 'AccessTokenIssued').map((h) => h.data);
    expect(issued).toEqual([
      expect.objectContaining({ grantType: 'authorization_code', jti: jti(tokens.access_token), kid: kid(tokens.access_token), idToken: { kid: kid(tokens.id_token!), expiresAt: idClaims.exp } }),
      expect.objectContaining({ grantType: 'refresh_token', jti: jti(refreshed.access_token), kid: kid(refreshed.access_token), idToken: { kid: kid(refreshed.id_token!), expiresAt: expect.any(Number) } }),
    ]);
    expect(JSON.stringify(history)).not.toContain(tokens.refresh_token!);
    expect(JSON.stringify(history)).not.toContain(callback.searchParams.get('code')!);
    // Each entry says where its request came from: the browser for the sign-in, the code and
    // the logout, the relying party's HTTP client for the token requests.
    const fromBrowser = new Set(['SessionStarted', 'UserAuthenticated', 'CodeIssued', 'SessionRevoked']);
    for (const h of history) {
      expect({ type: h.type, sourceIp: h.sourceIp, userAgent: h.userAgent }).toEqual({
        type: h.type,
        sourceIp: '127.0.0.1',
        userAgent: fromBrowser.has(h.type) ? Browser.USER_AGENT : expect.stringMatching(/^openid-client\//),
      });
    }
    expect(contract.checked).toBeGreaterThan(8);
  });

  it('revokes the whole session when a rotated refresh token is replayed by its client', async () => {
    const config = await discover();
    const { res, verifier, state, nonce } = await signIn(config, new Browser());
    const tokens = await oidc.authorizationCodeGrant(config, new URL(res.headers.get('location')!), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    const next = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await oidc.tokenIntrospection(config, next.access_token)).active).toBe(false);
    expect((await oidc.tokenIntrospection(config, next.refresh_token!)).active).toBe(false);
    await expect(oidc.refreshTokenGrant(config, next.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.fetchUserInfo(config, next.access_token, oidc.skipSubjectCheck)).rejects.toThrow();
  });

  it('keeps a document in the tokens view only for a refresh token that may still be used, so the view grows with grants and not with rotations', async () => {
    const config = await discover();
    const { res, verifier, state, nonce } = await signIn(config, new Browser());
    const chain = [(await oidc.authorizationCodeGrant(config, new URL(res.headers.get('location')!), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce })).refresh_token!];
    for (let i = 0; i < 3; i++) chain.push((await oidc.refreshTokenGrant(config, chain.at(-1)!)).refresh_token!);
    for (const rotated of chain.slice(0, -1)) expect(await refreshTokenDocument(server, rotated)).toBeNull();
    expect(await refreshTokenDocument(server, chain.at(-1)!)).toMatchObject({ kind: 'refresh_token', clientId: 'web', status: 'active' });
    expect((await oidc.tokenIntrospection(config, chain.at(-1)!)).active).toBe(true);
    await oidc.tokenRevocation(config, chain.at(-1)!);
    expect(await refreshTokenDocument(server, chain.at(-1)!)).toBeNull();
    // Without documents, each token is inactive; the audit trail still lists every one.
    for (const t of chain) expect(await oidc.tokenIntrospection(config, t)).toEqual({ active: false });
    const history = await tokenHistory(server, { sessionId: chain[0].slice(0, 22) });
    expect(history.filter((h) => h.type === 'RefreshRotated')).toHaveLength(3);
  });

  it('issues client_credentials tokens that introspect as active and die on revocation', async () => {
    const config = await discover('service', 'service-secret-0123456789-0123456789-xyz');
    const t = await oidc.clientCredentialsGrant(config, { scope: 'orders:read' });
    expect(t.scope).toBe('orders:read');
    expect(t.refresh_token).toBeUndefined();
    expect(await oidc.tokenIntrospection(config, t.access_token)).toMatchObject({ active: true, client_id: 'service', sub: 'service', scope: 'orders:read' });
    const [header, payload] = t.access_token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    const recorded = (await tokenHistory(server, { clientId: 'service' })).find((h) => h.data.jti === payload.jti);
    expect(recorded?.data).toMatchObject({ grantType: 'client_credentials', kid: header.kid });
    expect(recorded?.data).not.toHaveProperty('idToken');
    await oidc.tokenRevocation(config, t.access_token);
    expect((await oidc.tokenIntrospection(config, t.access_token)).active).toBe(false);
  });
  it('records the address the connection came from, not one an X-Forwarded-For names when no proxy is trusted (TRUST_PROXY unset)', async () => {
    const res = await contract.fetch(`${server.issuer()}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`service:${SERVICE_SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': '203.0.113.9',
        'user-agent': 'inventory-sync/2.1',
      },
      body: 'grant_type=client_credentials',
    });
    expect(res.status).toBe(200);
    const correlationId = res.headers.get('x-request-id');
    const [entry] = (await tokenHistory(server, { clientId: 'service' })).filter((h) => h.correlationId === correlationId);
    expect(entry).toMatchObject({ type: 'AccessTokenIssued', sourceIp: '127.0.0.1', userAgent: 'inventory-sync/2.1' });
  });
});

describe('secrets at rest', () => {
  it('keeps no secret in usable form anywhere in the data directory: client secrets, passwords, codes, verifiers, tokens, cookies', async () => {
    const config = await discover();
    const wrongPassword = `wrong-${oidc.randomState()}`;
    const refused = await signIn(config, new Browser(), {}, wrongPassword);
    expect(refused.res.status).toBe(400);
    const browser = new Browser();
    const { res, verifier, state, nonce } = await signIn(config, browser);
    const callback = new URL(res.headers.get('location')!);
    const code = callback.searchParams.get('code')!;
    const sid = browser.cookie('sid')!;
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    const service = await oidc.clientCredentialsGrant(await discover('service', SERVICE_SECRET), { scope: 'orders:read' });
    // Every event and view is written before its answer; the files hold them (the WAL too).
    const files = readdirSync(server.dataDir).filter((f) => f !== 'bootstrap.yaml');
    expect(files).toContain('authserver.db');
    const contents = files.map((f) => readFileSync(join(server.dataDir, f)));
    const signature = (jwt: string) => jwt.split('.')[2];
    // The part after the session id and the issue stamp is the secret of a code, a refresh token or a cookie.
    const secretOf = (artefact: string) => artefact.slice(22 + 1 + 12);
    const secrets: Record<string, string> = {
      'client secret': WEB_SECRET,
      'service secret': SERVICE_SECRET,
      password: ALICE_PASSWORD,
      'wrong password': wrongPassword,
      'code verifier': verifier,
      code: secretOf(code),
      'session cookie': secretOf(sid),
      'refresh token': secretOf(tokens.refresh_token!),
      'rotated refresh token': secretOf(refreshed.refresh_token!),
      'access token signature': signature(tokens.access_token),
      'ID token signature': signature(tokens.id_token!),
      'client_credentials token signature': signature(service.access_token),
    };
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length).toBeGreaterThanOrEqual(20);
      expect({ name, found: files.filter((_, i) => contents[i].includes(secret)) }).toEqual({ name, found: [] });
    }
  });
});
