import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { ADMIN_BOOTSTRAP, adminCall, adminToken } from '../support/admin.js';
import type { Browser } from '../support/browser.js';
import { LogoutReceiver, type Reply } from '../support/receiver.js';
import { BOB_PASSWORD, decodeJwt, type RelyingParty } from '../support/rp.js';
import { REDIRECT, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

/** The origin of the test clients' redirect URIs: where their pages are, and a logout is posted from. */
const CLIENT_ORIGIN = new URL(REDIRECT).origin;
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

let rp: RelyingParty;
let server: TestServer;
const contract = endToEnd(async (s) => {
  ({ rp, server } = s);
  // Retries wait on the server's clock, which the tests move.
  server.clock.freeze();
}, ADMIN_BOOTSTRAP);

const receivers: LogoutReceiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.down();
});

/** A fresh admin token: the tests move the server's clock by hours, past any token's life. */
const admin = () => adminToken(server, 'acme');

let clients = 0;
/** A new public, first-party client with `backchannel_logout_uri` set to the receiver's. */
async function clientFor(receiver: LogoutReceiver, extra: Record<string, unknown> = {}): Promise<string> {
  const clientId = `bc-${++clients}`;
  const res = await adminCall(server, contract, 'POST', '/acme/configuration/clients', await admin(), {
    client_id: clientId,
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'openid offline_access',
    token_endpoint_auth_method: 'none',
    first_party: true,
    backchannel_logout_uri: receiver.uri,
    ...extra,
  });
  expect(res.status).toBe(201);
  rp.auths.set(clientId, () => oauth.None());
  return clientId;
}

async function receiver(statuses: Array<number | Reply> = [], up = true): Promise<LogoutReceiver> {
  const r = await LogoutReceiver.create(statuses, up);
  receivers.push(r);
  return r;
}

/** A browser signed in through `clientId`, the tokens it got, and the session id (`sid` of its ID token). */
async function signedIn(clientId: string, user?: { username: string; password: string }): Promise<{ browser: Browser; tokens: oauth.TokenEndpointResponse; sid: string; sub: string }> {
  const browser = rp.browser();
  const tokens = await rp.tokens({ clientId, scope: 'openid', ...user }, browser);
  const { sid, sub } = decodeJwt(tokens.id_token!).payload as { sid: string; sub: string };
  return { browser, tokens, sid, sub };
}

/** RP-initiated logout, confirmed (posted from the client's own origin with its ID token). */
async function logout(browser: Browser, tokens: oauth.TokenEndpointResponse): Promise<void> {
  const res = await browser.post(rp.as.end_session_endpoint!, { id_token_hint: tokens.id_token! }, CLIENT_ORIGIN);
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('Signed out');
}

/** The server's clock moves on, so that the retry due by then is made. */
const advance = (ms: number) => server.clock.advance(ms);

async function history(sid: string): Promise<string[]> {
  const audit = await adminToken(server, 'acme', 'central:audit');
  const res = await adminCall(server, contract, 'GET', `/acme/configuration/audit/sessions/${encodeURIComponent(sid)}`, audit);
  expect(res.status).toBe(200);
  return (res.body.items as Array<{ type: string }>).map((e) => e.type);
}

/** Polls the session's history (not a fixed sleep) until it holds `count` events of one of `types`. */
async function untilInHistory(sid: string, type: string | string[], count = 1): Promise<string[]> {
  const wanted = [type].flat();
  const deadline = Date.now() + 10_000;
  for (;;) {
    const types = await history(sid);
    if (types.filter((t) => wanted.includes(t)).length >= count || Date.now() > deadline) return types;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('client metadata and discovery', () => {
  it('announces back-channel logout with sid in discovery', () => {
    expect(rp.as.backchannel_logout_supported).toBe(true);
    expect(rp.as.backchannel_logout_session_supported).toBe(true);
  });

  it('takes https, and http on loopback or private hosts; refuses plain http elsewhere, fragments, other schemes', async () => {
    const bearer = await admin();
    const create = (uri: string, extra: Record<string, unknown> = {}) =>
      adminCall(server, contract, 'POST', '/acme/configuration/clients', bearer, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', backchannel_logout_uri: uri, ...extra });
    for (const ok of ['https://rp.example.com/logout', 'http://127.0.0.1:8080/bc', 'http://10.1.2.3/bc', 'http://192.168.0.7:81/bc', 'http://[::1]:9/bc']) {
      const res = await create(ok, { backchannel_logout_session_required: true });
      expect([ok, res.status]).toEqual([ok, 201]);
      expect(res.body).toMatchObject({ backchannel_logout_uri: ok, backchannel_logout_session_required: true });
    }
    for (const bad of ['http://rp.example.com/logout', 'https://rp.example.com/logout#x', 'ftp://10.0.0.1/x', 'javascript:alert(1)', '/relative', 'http://8.8.8.8/bc']) {
      const res = await create(bad);
      expect([bad, res.status]).toEqual([bad, 400]);
    }
  });
});

describe('delivery of logout tokens', () => {
  it('POSTs a logout token that validates with jose against the JWKS, and records the delivery in the session history', async () => {
    const r = await receiver();
    const clientId = await clientFor(r, { backchannel_logout_session_required: true });
    const { browser, tokens, sid, sub } = await signedIn(clientId);
    await logout(browser, tokens);
    await r.posts(1);
    expect(r.received[0].contentType).toBe('application/x-www-form-urlencoded');
    const token = r.tokens[0];
    const jwks = createRemoteJWKSet(new URL(rp.as.jwks_uri!));
    const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer: rp.issuer, audience: clientId, typ: 'logout+jwt', currentDate: server.clock.now() });
    expect(protectedHeader.typ).toBe('logout+jwt');
    expect(payload).toMatchObject({ sid, sub, events: { [EVENT]: {} } });
    expect(payload.jti).toEqual(expect.any(String));
    expect(payload.nonce).toBeUndefined();
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(300);
    const types = await untilInHistory(sid, 'BackchannelLogoutDelivered');
    expect(types.slice(types.indexOf('SessionRevoked'))).toEqual(['SessionRevoked', 'BackchannelLogoutDelivered']);
  });

  it('retries a receiver that answers 503 twice: the third attempt delivers', async () => {
    const r = await receiver([503, 503]);
    const { browser, tokens, sid } = await signedIn(await clientFor(r));
    await logout(browser, tokens);
    await r.posts(1);
    // Each retry is due once the failure before it is recorded and the clock has moved past its delay.
    await untilInHistory(sid, 'BackchannelLogoutFailed', 1);
    advance(1_000);
    await r.posts(2);
    await untilInHistory(sid, 'BackchannelLogoutFailed', 2);
    expect(r.received.length).toBe(2);
    advance(2_000);
    await r.posts(3);
    const types = await untilInHistory(sid, 'BackchannelLogoutDelivered');
    expect(types.filter((t) => t.startsWith('Backchannel'))).toEqual(['BackchannelLogoutFailed', 'BackchannelLogoutFailed', 'BackchannelLogoutDelivered']);
    // All three carried a valid token for the same session.
    expect(new Set(r.tokens.map((t) => decodeJwt(t).payload.sid))).toEqual(new Set([sid]));
  });

  it('delivers to a receiver that was down during the logout once it is up', async () => {
    const r = await receiver([], false);
    const { browser, tokens, sid } = await signedIn(await clientFor(r));
    await logout(browser, tokens);
    const failed = await untilInHistory(sid, 'BackchannelLogoutFailed');
    expect(failed).toContain('BackchannelLogoutFailed');
    await r.up();
    advance(60_000);
    await r.posts(1);
    expect(decodeJwt(r.tokens[0]).payload.sid).toBe(sid);
    expect(await untilInHistory(sid, 'BackchannelLogoutDelivered')).toContain('BackchannelLogoutDelivered');
  });

  it('holds up no other receiver while one never answers, and sends one receiver at most 4 POSTs at once', async () => {
    const silent = await receiver([], false);
    // Listening but never answering: attempts stay in flight until their timeout.
    const { createServer } = await import('node:net');
    let open = 0;
    let most = 0;
    const hung = createServer((socket) => {
      most = Math.max(most, ++open);
      socket.on('close', () => open--);
    }).listen(silent.port, '127.0.0.1');
    try {
      const slow = await clientFor(silent);
      for (let i = 0; i < 6; i++) {
        const s = await signedIn(slow);
        await logout(s.browser, s.tokens);
      }
      const deadline = Date.now() + 10_000;
      while (open < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const fast = await receiver();
      const s = await signedIn(await clientFor(fast));
      await logout(s.browser, s.tokens);
      await fast.posts(1);
      expect(open).toBeGreaterThan(0);
      expect(most).toBe(4);
    } finally {
      hung.close();
    }
  });

  it('dead-letters a receiver that never recovers; an administrator lists it and redelivers it', async () => {
    const r = await receiver(Array(1000).fill(500));
    const clientId = await clientFor(r);
    const { browser, tokens, sid } = await signedIn(clientId);
    await logout(browser, tokens);
    let dead: any;
    for (let step = 1; step < 60 && !dead; step++) {
      await r.posts(step);
      const types = await untilInHistory(sid, ['BackchannelLogoutFailed', 'BackchannelLogoutDeadLettered'], step);
      if (types.includes('BackchannelLogoutDeadLettered')) {
        const list = await adminCall(server, contract, 'GET', '/acme/configuration/deliveries/dead-letters', await admin());
        expect(list.status).toBe(200);
        dead = list.body.items.find((d: { sid: string }) => d.sid === sid);
      }
      advance(301_000);
    }
    expect(dead).toMatchObject({ client_id: clientId, sid, status: 'dead', last_status: 500, backchannel_logout_uri: r.uri });
    expect(dead.attempts).toBeGreaterThan(5);
    expect(await history(sid)).toContain('BackchannelLogoutDeadLettered');
    const attempts = r.received.length;

    r.received.length = 0;
    (r as unknown as { statuses: number[] }).statuses.length = 0;
    const reader = await adminToken(server, 'acme', 'central:read');
    expect((await adminCall(server, contract, 'POST', `/acme/configuration/deliveries/dead-letters/${dead.id}/redeliver`, reader)).status).toBe(403);
    const again = await adminCall(server, contract, 'POST', `/acme/configuration/deliveries/dead-letters/${dead.id}/redeliver`, await admin());
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id: dead.id, status: 'pending', attempts: 0 });
    await r.posts(1);
    expect(decodeJwt(r.tokens[0]).payload.sid).toBe(sid);
    expect(await untilInHistory(sid, 'BackchannelLogoutDelivered')).toContain('BackchannelLogoutDelivered');
    const list = await adminCall(server, contract, 'GET', '/acme/configuration/deliveries/dead-letters', await admin());
    expect(list.body.items.find((d: { id: string }) => d.id === dead.id)).toBeUndefined();
    expect((await adminCall(server, contract, 'POST', `/acme/configuration/deliveries/dead-letters/${dead.id}/redeliver`, await admin())).status).toBe(404);
    expect(attempts).toBeGreaterThan(5);
  });

  it('dead-letters at once a logout token the RP answers 400 (BCL §2.8), with its error; no retry follows', async () => {
    const r = await receiver([{ status: 400, json: { error: 'invalid_request', error_description: 'unexpected aud' } }]);
    const clientId = await clientFor(r);
    const { browser, tokens, sid } = await signedIn(clientId);
    await logout(browser, tokens);
    await r.posts(1);
    expect(await untilInHistory(sid, 'BackchannelLogoutDeadLettered')).not.toContain('BackchannelLogoutFailed');
    const list = await adminCall(server, contract, 'GET', '/acme/configuration/deliveries/dead-letters?kind=backchannel_logout', await admin());
    const dead = list.body.items.find((d: { sid: string }) => d.sid === sid);
    expect(dead).toMatchObject({ client_id: clientId, status: 'dead', attempts: 1, last_status: 400, last_error: 'invalid_request: unexpected aud' });
    expect(r.received).toHaveLength(1);
  });

  it('sends a logout token for each session of a user who is disabled', async () => {
    const r = await receiver();
    const clientId = await clientFor(r);
    const bob = { username: 'bob', password: BOB_PASSWORD };
    const one = await signedIn(clientId, bob);
    const two = await signedIn(clientId, bob);
    const res = await adminCall(server, contract, 'PATCH', `/acme/configuration/users/${one.sub}`, await admin(), { disabled: true });
    expect(res.status).toBe(200);
    await r.posts(2);
    expect(new Set(r.tokens.map((t) => decodeJwt(t).payload.sid))).toEqual(new Set([one.sid, two.sid]));
  });
});
