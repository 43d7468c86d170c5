import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { ADMIN_BOOTSTRAP, ADMIN_SECRET, adminCall, adminToken } from '../support/admin.js';
import type { RelyingParty } from '../support/rp.js';
import { BOB_PASSWORD, decodeJwt } from '../support/rp.js';
import { REDIRECT, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
const VERIFICATION = 'https://schemas.openid.net/secevent/ssf/event-type/verification';
const ALL = [`${CAEP}session-revoked`, `${CAEP}credential-change`, `${RISC}account-disabled`, `${RISC}account-enabled`];
const POLL = 'urn:ietf:rfc:8936';
const PUSH = 'urn:ietf:rfc:8935';

/** Two receivers (ssf:manage) and a client without that scope, at acme; a receiver at beta. */
const receivers = (tenant: string) => `
      - client_id: receiver
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "ssf:manage"
      - client_id: other-receiver
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "ssf:manage"
      - client_id: unscoped-${tenant}
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "orders:read"`;
const BOOTSTRAP = ADMIN_BOOTSTRAP.replace('    clients:\n', `    clients:${receivers('acme')}\n`).replace(/(- id: beta\n(?:.*\n)*?    clients:)/, `$1${receivers('beta')}`);

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd((s) => ({ server, rp } = s), BOOTSTRAP);

const token = (clientId = 'receiver', tenant = 'acme', scope = 'ssf:manage') => adminToken(server, tenant, scope, clientId);

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** A call to `{issuer}<path>` with a JSON body, as `clientId` (or with `bearer`). */
async function call(method: string, path: string, body?: unknown, bearer?: string | null): Promise<Answer> {
  const auth = bearer === null ? undefined : (bearer ?? (await token()));
  const res = await contract.fetch(`${server.issuer('acme')}${path}`, {
    method,
    headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function createStream(body: Record<string, unknown> = { events_requested: ALL }, bearer?: string): Promise<string> {
  const res = await call('POST', '/ssf/stream', body, bearer);
  expect(res.status).toBe(201);
  return res.body.stream_id;
}

async function userId(username: string): Promise<string> {
  const res = await adminCall(server, contract, 'GET', `/acme/configuration/users?username=${username}`, await adminToken(server, 'acme'));
  return res.body.items[0].id;
}

async function patchUser(username: string, change: Record<string, unknown>): Promise<void> {
  const res = await adminCall(server, contract, 'PATCH', `/acme/configuration/users/${await userId(username)}`, await adminToken(server, 'acme'), change);
  expect(res.status).toBe(200);
}

const poll = (streamId: string, body: Record<string, unknown> = {}, bearer?: string) => call('POST', `/ssf/poll/${streamId}`, body, bearer);

/** Asks for a verification event and polls until it comes: every event before the request has then been handled. */
async function settle(streamId: string, state = `marker-${Math.random()}`): Promise<Record<string, string>> {
  expect((await call('POST', '/ssf/verify', { stream_id: streamId, state })).status).toBe(204);
  const got: Record<string, string> = {};
  for (;;) {
    const res = await poll(streamId, { ack: Object.keys(got) });
    expect(res.status).toBe(200);
    for (const [jti, set] of Object.entries(res.body.sets as Record<string, string>)) {
      const events = decodeJwt(set).payload.events as Record<string, { state?: string }>;
      if (events[VERIFICATION]?.state === state) {
        await poll(streamId, { ack: [jti], returnImmediately: true });
        return got;
      }
      got[jti] = set;
    }
  }
}

async function verified(set: string) {
  const jwks = createRemoteJWKSet(new URL(`${server.issuer('acme')}/.well-known/jwks.json`));
  return jwtVerify(set, jwks, { issuer: server.issuer('acme'), audience: 'receiver', typ: 'secevent+jwt' });
}

describe('metadata', () => {
  it('is served under the issuer and with the well-known segment before the tenant, the same document', async () => {
    const under = await contract.fetch(`${server.issuer('acme')}/.well-known/ssf-configuration`);
    const pathForm = await contract.fetch(`${server.baseUrl}/.well-known/ssf-configuration/acme`);
    expect(under.status).toBe(200);
    const doc = await under.json();
    expect(await pathForm.json()).toEqual(doc);
    const issuer = server.issuer('acme');
    expect(doc).toMatchObject({
      spec_version: '1_0',
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      delivery_methods_supported: expect.arrayContaining([POLL]),
      configuration_endpoint: `${issuer}/ssf/stream`,
      status_endpoint: `${issuer}/ssf/status`,
      add_subject_endpoint: `${issuer}/ssf/subjects/add`,
      remove_subject_endpoint: `${issuer}/ssf/subjects/remove`,
      verification_endpoint: `${issuer}/ssf/verify`,
      authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6749' }],
      default_subjects: 'NONE',
    });
    expect((await contract.fetch(`${server.baseUrl}/.well-known/ssf-configuration/nowhere`)).status).toBe(404);
  });
});

describe('access', () => {
  it('takes only a client token of the tenant with ssf:manage', async () => {
    const none = await call('GET', '/ssf/stream', undefined, null);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await call('GET', '/ssf/stream', undefined, await token('unscoped-acme', 'acme', 'orders:read'))).status).toBe(403);
    expect((await call('GET', '/ssf/stream', undefined, await adminToken(server, 'acme'))).status).toBe(403);
    expect((await call('GET', '/ssf/stream', undefined, await token('receiver', 'beta'))).status).toBe(401);
    expect((await call('POST', '/ssf/stream', { events_requested: ALL }, 'garbage')).status).toBe(401);
    expect((await call('POST', '/ssf/poll/abc', {}, await token('unscoped-acme', 'acme', 'orders:read'))).status).toBe(403);
  });
});

describe('stream management', () => {
  it('creates, reads, updates, replaces and deletes a stream of its own receiver', async () => {
    const created = await call('POST', '/ssf/stream', { events_requested: [`${CAEP}session-revoked`, 'urn:example:unknown'], description: 'first' });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const id = created.body.stream_id;
    const issuer = server.issuer('acme');
    expect(created.body).toEqual({
      stream_id: id,
      iss: issuer,
      aud: 'receiver',
      events_supported: [...ALL, VERIFICATION],
      events_requested: [`${CAEP}session-revoked`, 'urn:example:unknown'],
      // Requested ∩ supported.
      events_delivered: [`${CAEP}session-revoked`],
      delivery: { method: POLL, endpoint_url: `${issuer}/ssf/poll/${id}` },
      description: 'first',
    });
    expect((await call('GET', `/ssf/stream?stream_id=${id}`)).body).toEqual(created.body);
    expect((await call('GET', '/ssf/stream')).body).toEqual(expect.arrayContaining([created.body]));

    const patched = await call('PATCH', '/ssf/stream', { stream_id: id, events_requested: ALL });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ events_delivered: ALL, description: 'first' });
    // A transmitter-supplied member may be repeated as it is, not changed.
    expect((await call('PATCH', '/ssf/stream', { stream_id: id, iss: issuer, aud: 'receiver' })).status).toBe(200);
    expect((await call('PATCH', '/ssf/stream', { stream_id: id, aud: 'someone-else' })).status).toBe(400);
    const replaced = await call('PUT', '/ssf/stream', { stream_id: id, events_requested: [`${RISC}account-disabled`] });
    expect(replaced.status).toBe(200);
    expect(replaced.body.description).toBeUndefined();
    expect(replaced.body.events_delivered).toEqual([`${RISC}account-disabled`]);

    // Another receiver sees nothing of it.
    const other = await token('other-receiver');
    expect((await call('GET', `/ssf/stream?stream_id=${id}`, undefined, other)).status).toBe(404);
    expect((await call('GET', '/ssf/stream', undefined, other)).body).toEqual([]);
    expect((await call('DELETE', `/ssf/stream?stream_id=${id}`, undefined, other)).status).toBe(404);
    expect((await call('POST', `/ssf/poll/${id}`, {}, other)).status).toBe(404);

    expect((await call('DELETE', `/ssf/stream?stream_id=${id}`)).status).toBe(204);
    expect((await call('GET', `/ssf/stream?stream_id=${id}`)).status).toBe(404);
    expect((await call('GET', `/ssf/status?stream_id=${id}`)).status).toBe(404);
  });

  it('refuses bad configurations with invalid_request', async () => {
    const bad = [
      'not json',
      [],
      { events_requested: 'all' },
      { events_requested: [1] },
      { delivery: { method: 'urn:example:carrier-pigeon' } },
      { delivery: { method: PUSH } },
      { delivery: { method: PUSH, endpoint_url: 'http://receiver.example.com/events' } },
      { delivery: { method: POLL, endpoint_url: 'https://elsewhere.example.com/poll' } },
      { delivery: { method: POLL, authorization_header: 'Bearer x' } },
      { stream_id: 'chosen' },
      { events_supported: [] },
      { color: 'blue' },
    ];
    for (const body of bad) {
      const res = await call('POST', '/ssf/stream', body);
      expect([body, res.status, res.body?.error]).toEqual([body, 400, 'invalid_request']);
    }
    const id = await createStream();
    for (const [path, body] of [
      ['/ssf/status', { stream_id: id, status: 'sleeping' }],
      ['/ssf/subjects/add', { stream_id: id, subject: { format: 'phone_number', phone_number: '+12065550100' } }],
      ['/ssf/subjects/add', { stream_id: id, subject: { format: 'iss_sub', iss: 'https://elsewhere.example.com', sub: 'x' } }],
      ['/ssf/subjects/add', { stream_id: id, subject: { format: 'email', email: 'not-an-address' } }],
      ['/ssf/verify', { stream_id: id, state: 7 }],
      ['/ssf/verify', { stream_id: '../x' }],
    ] as const) {
      const res = await call('POST', path, body);
      expect([path, body, res.status]).toEqual([path, body, 400]);
    }
    for (const body of [{ maxEvents: -1 }, { maxEvents: 1.5 }, { ack: 'x' }, { setErrs: { a: 'b' } }, { returnImmediately: 'yes' }, { wait: 1 }]) {
      expect([body, (await poll(id, body)).status]).toEqual([body, 400]);
    }
    expect((await call('POST', '/ssf/subjects/remove', { stream_id: id, subject: { format: 'email', email: 'nobody@example.com' } })).status).toBe(404);
  });

  it('tells and changes the status', async () => {
    const id = await createStream();
    expect((await call('GET', `/ssf/status?stream_id=${id}`)).body).toEqual({ stream_id: id, status: 'enabled' });
    const paused = await call('POST', '/ssf/status', { stream_id: id, status: 'paused', reason: 'maintenance' });
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual({ stream_id: id, status: 'paused', reason: 'maintenance' });
    expect((await call('GET', `/ssf/status?stream_id=${id}`)).body).toEqual(paused.body);
  });
});

describe('Security Event Tokens, polled', () => {
  it('a SET validates against the JWKS: typ secevent+jwt, iss, aud, jti, iat, sub_id, events', async () => {
    const id = await createStream();
    const bob = await userId('bob');
    expect((await call('POST', '/ssf/subjects/add', { stream_id: id, subject: { format: 'iss_sub', iss: server.issuer('acme'), sub: bob } })).status).toBe(200);
    await patchUser('bob', { disabled: true });
    // No returnImmediately: the poll waits for the SET.
    const res = await poll(id);
    expect(res.status).toBe(200);
    const [[jti, set]] = Object.entries(res.body.sets as Record<string, string>);
    expect(decodeProtectedHeader(set).typ).toBe('secevent+jwt');
    const { payload } = await verified(set);
    expect(payload).toMatchObject({ jti, aud: 'receiver', sub_id: { format: 'iss_sub', iss: server.issuer('acme'), sub: bob }, events: { [`${RISC}account-disabled`]: {} } });
    expect(typeof payload.iat).toBe('number');
    expect(payload.exp).toBeUndefined();
    expect(payload.sub).toBeUndefined();
    await patchUser('bob', { disabled: false });
  });

  it('a SET not acknowledged comes again; one acknowledged never', async () => {
    const id = await createStream();
    const bob = await userId('bob');
    await call('POST', '/ssf/subjects/add', { stream_id: id, subject: { format: 'iss_sub', iss: server.issuer('acme'), sub: bob } });
    await patchUser('bob', { disabled: true });
    await patchUser('bob', { disabled: false });
    const first = await poll(id, { maxEvents: 1 });
    expect(Object.keys(first.body.sets)).toHaveLength(1);
    expect(first.body.moreAvailable).toBe(true);
    const [jti] = Object.keys(first.body.sets);
    // Not acknowledged: answered again, the same token.
    const again = await poll(id, { maxEvents: 1, returnImmediately: true });
    expect(again.body.sets).toEqual(first.body.sets);
    const next = await poll(id, { ack: [jti], returnImmediately: true });
    expect(Object.keys(next.body.sets)).not.toContain(jti);
    const events = Object.values(next.body.sets as Record<string, string>).map((s) => Object.keys(decodeJwt(s).payload.events as object)[0]);
    expect(events).toEqual([`${RISC}account-enabled`]);
    expect(next.body.moreAvailable).toBe(false);
    // The second one reported as an error: dropped too.
    const [second] = Object.keys(next.body.sets);
    const last = await poll(id, { setErrs: { [second]: { err: 'invalid_request', description: 'not for us' } }, returnImmediately: true });
    expect(last.body).toEqual({ sets: {}, moreAvailable: false });
    // Acknowledging again what is gone changes nothing.
    expect((await poll(id, { ack: [jti, second], returnImmediately: true })).body).toEqual({ sets: {}, moreAvailable: false });
  });

  it('the verification event names the stream and echoes state', async () => {
    const id = await createStream({});
    expect((await call('POST', '/ssf/verify', { stream_id: id, state: 'VGhpcyBpcyBhbiBleGFtcGxl' })).status).toBe(204);
    const res = await poll(id);
    const [set] = Object.values(res.body.sets as Record<string, string>);
    const { payload } = await verified(set);
    expect(payload.sub_id).toEqual({ format: 'opaque', id });
    expect(payload.events).toEqual({ [VERIFICATION]: { state: 'VGhpcyBpcyBhbiBleGFtcGxl' } });
  });

  it('only events the stream requested, only about its subjects', async () => {
    const onlySessions = await createStream({ events_requested: [`${CAEP}session-revoked`] });
    const all = await createStream();
    const bob = await userId('bob');
    for (const id of [onlySessions, all]) await call('POST', '/ssf/subjects/add', { stream_id: id, subject: { format: 'iss_sub', iss: server.issuer('acme'), sub: bob } });
    await call('POST', '/ssf/subjects/remove', { stream_id: all, subject: { format: 'iss_sub', iss: server.issuer('acme'), sub: bob } });
    await patchUser('bob', { disabled: true });
    await patchUser('bob', { disabled: false });
    // Both have been handled once the marker arrives: neither stream got anything else.
    expect(await settle(onlySessions)).toEqual({});
    expect(await settle(all)).toEqual({});
  });

  it('credential-change for a password set anew, in the e-mail format the subject was added in', async () => {
    const id = await createStream();
    expect((await call('POST', '/ssf/subjects/add', { stream_id: id, subject: { format: 'email', email: 'Alice@Example.com' } })).status).toBe(200);
    await patchUser('alice', { password: 'a new and long password for alice' });
    const sets = Object.values(await settle(id));
    expect(sets).toHaveLength(1);
    const { payload } = await verified(sets[0]);
    expect(payload.sub_id).toEqual({ format: 'email', email: 'alice@example.com' });
    expect(payload.events).toEqual({ [`${CAEP}credential-change`]: { credential_type: 'password', change_type: 'update', event_timestamp: expect.any(Number), initiating_entity: 'admin' } });
  });

  it('session-revoked at logout, naming the user and the session', async () => {
    const id = await createStream({ events_requested: [`${CAEP}session-revoked`] });
    const bob = await userId('bob');
    await call('POST', '/ssf/subjects/add', { stream_id: id, subject: { format: 'iss_sub', iss: server.issuer('acme'), sub: bob } });
    const browser = rp.browser();
    const tokens = await rp.tokens({ clientId: 'web', scope: 'openid', username: 'bob', password: BOB_PASSWORD }, browser);
    const { sid } = decodeJwt(tokens.id_token!).payload as { sid: string };
    const out = await browser.post(rp.as.end_session_endpoint!, { id_token_hint: tokens.id_token! }, new URL(REDIRECT).origin);
    expect(out.status).toBe(200);
    const sets = Object.values(await settle(id));
    expect(sets).toHaveLength(1);
    const { payload } = await verified(sets[0]);
    expect(payload.sub_id).toEqual({ format: 'complex', user: { format: 'iss_sub', iss: server.issuer('acme'), sub: bob }, session: { format: 'opaque', id: sid } });
    expect(payload.events).toEqual({ [`${CAEP}session-revoked`]: { event_timestamp: expect.any(Number), initiating_entity: 'user' } });
  });

  it('a paused stream holds its SETs until enabled; a disabled one drops them', async () => {
    const id = await createStream({});
    await call('POST', '/ssf/status', { stream_id: id, status: 'paused' });
    await call('POST', '/ssf/verify', { stream_id: id, state: 'held' });
    expect((await poll(id)).body).toEqual({ sets: {}, moreAvailable: false });
    await call('POST', '/ssf/status', { stream_id: id, status: 'enabled' });
    const held = await poll(id);
    expect(Object.values(held.body.sets as Record<string, string>).map((s) => (decodeJwt(s).payload.events as any)[VERIFICATION].state)).toEqual(['held']);
    await call('POST', '/ssf/status', { stream_id: id, status: 'disabled' });
    await call('POST', '/ssf/status', { stream_id: id, status: 'enabled' });
    expect(await settle(id)).toEqual({});
  });
});
