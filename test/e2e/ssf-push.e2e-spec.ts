import { createRemoteJWKSet, jwtVerify } from 'jose';
import { ADMIN_BOOTSTRAP, ADMIN_SECRET, adminCall, adminToken } from '../support/admin.js';
import { EVENT_STORE, type EventStore } from '../../src/infrastructure/event-store/event-store.port.js';
import { PostReceiver } from '../support/receiver.js';
import { type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
const PUSH = 'urn:ietf:rfc:8935';

/** `receiver` and `internal-receiver` may push to loopback (the tests' receivers are there); `public-receiver` may not. */
const BOOTSTRAP = ADMIN_BOOTSTRAP.replace(
  '    clients:\n',
  `    clients:
      - client_id: receiver
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "ssf:manage"
        ssf_push_internal_endpoints: true
      - client_id: internal-receiver
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "ssf:manage"
        ssf_push_internal_endpoints: true
      - client_id: public-receiver
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "ssf:manage"
`,
);

let server: TestServer;
const contract = endToEnd((s) => ({ server } = s), BOOTSTRAP);

/** An RFC 8935 receiver on 127.0.0.1: answers each POST with the next of `statuses` (then 202), and records it. */
/** RFC 8935 §2: a receiver answers 202 Accepted to a SET it took. */
const receivers: PostReceiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.down())));

async function call(method: string, path: string, body?: unknown, clientId = 'receiver'): Promise<{ status: number; body: any }> {
  const res = await contract.fetch(`${server.issuer('acme')}${path}`, {
    method,
    headers: { authorization: `Bearer ${await adminToken(server, 'acme', 'ssf:manage', clientId)}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function bob(): Promise<string> {
  return (await adminCall(server, contract, 'GET', '/acme/configuration/users?username=bob', await adminToken(server, 'acme'))).body.items[0].id;
}

async function setDisabled(disabled: boolean): Promise<void> {
  expect((await adminCall(server, contract, 'PATCH', `/acme/configuration/users/${await bob()}`, await adminToken(server, 'acme'), { disabled })).status).toBe(200);
}

async function pushStream(receiver: PostReceiver): Promise<string> {
  const created = await call('POST', '/ssf/stream', {
    events_requested: [`${RISC}account-disabled`, `${RISC}account-enabled`],
    delivery: { method: PUSH, endpoint_url: receiver.url, authorization_header: 'Bearer receiver-own-credential' },
  });
  expect(created.status).toBe(201);
  // The Authorization header is write-only.
  expect(created.body.delivery).toEqual({ method: PUSH, endpoint_url: receiver.url });
  const id = created.body.stream_id;
  expect((await call('POST', '/ssf/subjects/add', { stream_id: id, subject: { format: 'iss_sub', iss: server.issuer('acme'), sub: await bob() } })).status).toBe(200);
  return id;
}

it('is announced in the metadata', async () => {
  const doc = (await (await contract.fetch(`${server.issuer('acme')}/.well-known/ssf-configuration`)).json()) as { delivery_methods_supported: string[] };
  expect(doc.delivery_methods_supported).toEqual([PUSH, 'urn:ietf:rfc:8936']);
});

it('pushes a SET to a receiver that answers 503, then 202: the same SET again, with its Authorization header', async () => {
  const receiver = await PostReceiver.start('/caep/events', [503], 202);
  receivers.push(receiver);
  await pushStream(receiver);
  await setDisabled(true);
  await receiver.posts(1);
  // The retry is due after about DELIVERY_FIRST_RETRY_MS on the server's clock.
  server.clock.advance(2000);
  await receiver.posts(2);
  const [first, second] = receiver.taken;
  for (const r of [first, second]) {
    expect(r.headers['content-type']).toBe('application/secevent+jwt');
    expect(r.headers.authorization).toBe('Bearer receiver-own-credential');
  }
  const jwks = createRemoteJWKSet(new URL(`${server.issuer('acme')}/.well-known/jwks.json`));
  const verified = await Promise.all([first, second].map((r) => jwtVerify(r.body, jwks, { issuer: server.issuer('acme'), audience: 'receiver', typ: 'secevent+jwt' })));
  expect(verified[1].payload.jti).toBe(verified[0].payload.jti);
  expect(verified[1].payload).toMatchObject({ sub_id: { format: 'iss_sub', sub: await bob() }, events: { [`${RISC}account-disabled`]: {} } });
  // Both outcomes are in the log.
  const outcomes = await server.app.get<EventStore>(EVENT_STORE).readStream(`ssfpush-acme.${verified[0].payload.jti}`);
  expect(outcomes.map((e) => [e.type, (e.data as { status?: number }).status])).toEqual([
    ['SsfSetDeliveryFailed', 503],
    ['SsfSetDelivered', 202],
  ]);
  await setDisabled(false);
  await receiver.posts(3);
  expect(Object.keys(JSON.parse(Buffer.from(receiver.taken[2].body.split('.')[1], 'base64url').toString()).events)).toEqual([`${RISC}account-enabled`]);
});

it('holds the SETs of a paused stream and pushes them once it is enabled again', async () => {
  const receiver = await PostReceiver.start('/caep/events', [], 202);
  receivers.push(receiver);
  const id = await pushStream(receiver);
  expect((await call('POST', '/ssf/status', { stream_id: id, status: 'paused' })).status).toBe(200);
  await setDisabled(true);
  await setDisabled(false);
  expect(receiver.taken).toHaveLength(0);
  expect((await call('POST', '/ssf/status', { stream_id: id, status: 'enabled' })).status).toBe(200);
  await receiver.posts(2);
  const types = receiver.taken.map((r) => Object.keys(JSON.parse(Buffer.from(r.body.split('.')[1], 'base64url').toString()).events)[0]).sort();
  expect(types).toEqual([`${RISC}account-disabled`, `${RISC}account-enabled`]);
});

it('dead-letters at once a SET the receiver rejects with a 400 and an err (RFC 8935 §2.3), with its err and description', async () => {
  const receiver = await PostReceiver.start('/caep/events', [{ status: 400, json: { err: 'invalid_key', description: 'unknown kid' } }], 202);
  receivers.push(receiver);
  await pushStream(receiver);
  await setDisabled(true);
  await receiver.posts(1);
  const admin = () => adminToken(server, 'acme');
  let dead: any;
  for (const deadline = Date.now() + 10_000; !dead && Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const list = await adminCall(server, contract, 'GET', '/acme/configuration/deliveries/dead-letters?kind=ssf_push', await admin());
    dead = list.body.items.find((d: { url: string }) => d.url === receiver.url);
  }
  expect(dead).toMatchObject({ kind: 'ssf_push', status: 'dead', attempts: 1, last_status: 400, last_error: 'invalid_key: unknown kid' });
  const outcomes = await server.app.get<EventStore>(EVENT_STORE).readStream(`ssfpush-acme.${dead.jti}`);
  expect(outcomes.map((e) => [e.type, (e.data as { status?: number; error?: string }).status, (e.data as { error?: string }).error])).toEqual([['SsfSetDeliveryDeadLettered', 400, 'invalid_key: unknown kid']]);
  expect(receiver.taken).toHaveLength(1);
  await setDisabled(false);
});

it('takes from a receiver without ssf_push_internal_endpoints only an https endpoint on a public host', async () => {
  const push = (endpoint_url: string) => ({ events_requested: [`${RISC}account-disabled`], delivery: { method: PUSH, endpoint_url } });
  for (const url of [
    'http://127.0.0.1:8443/events',
    'http://receiver.example.com/events',
    'https://127.0.0.1/events',
    'https://127.1/events',
    'https://localhost/events',
    'https://api.localhost/events',
    'https://10.1.2.3/events',
    'https://192.168.0.10/events',
    'https://169.254.169.254/latest',
    'https://[::1]/events',
    'https://[fe80::1]/events',
    'https://[::ffff:127.0.0.1]/events',
  ]) {
    const res = await call('POST', '/ssf/stream', push(url), 'public-receiver');
    expect([url, res.status, res.body?.error]).toEqual([url, 400, 'invalid_request']);
  }
  const created = await call('POST', '/ssf/stream', push('https://receiver.example.com/events'), 'public-receiver');
  expect(created.status).toBe(201);
  const patched = await call('PATCH', '/ssf/stream', { stream_id: created.body.stream_id, delivery: { method: PUSH, endpoint_url: 'http://127.0.0.1:8443/events' } }, 'public-receiver');
  expect([patched.status, patched.body?.error]).toEqual([400, 'invalid_request']);
  // The same endpoints are taken from a receiver an administrator allowed internal ones.
  expect((await call('POST', '/ssf/stream', push('http://127.0.0.1:8443/events'), 'internal-receiver')).status).toBe(201);
  expect((await call('DELETE', `/ssf/stream?stream_id=${created.body.stream_id}`, undefined, 'public-receiver')).status).toBe(204);
});

it('shows ssf_push_internal_endpoints in the admin API, and dead-letters at once a SET for an internal endpoint once an administrator takes it away', async () => {
  const admin = () => adminToken(server, 'acme');
  const shown = await adminCall(server, contract, 'GET', '/acme/configuration/clients/internal-receiver', await admin());
  expect(shown.body.ssf_push_internal_endpoints).toBe(true);
  expect((await adminCall(server, contract, 'GET', '/acme/configuration/clients/public-receiver', await admin())).body).not.toHaveProperty('ssf_push_internal_endpoints');
  const receiver = await PostReceiver.start('/caep/events', [], 202);
  receivers.push(receiver);
  const created = await call('POST', '/ssf/stream', { events_requested: [`${RISC}account-disabled`, `${RISC}account-enabled`], delivery: { method: PUSH, endpoint_url: receiver.url } }, 'internal-receiver');
  expect(created.status).toBe(201);
  const streamId = created.body.stream_id;
  expect((await call('POST', '/ssf/subjects/add', { stream_id: streamId, subject: { format: 'iss_sub', iss: server.issuer('acme'), sub: await bob() } }, 'internal-receiver')).status).toBe(200);
  const taken = await adminCall(server, contract, 'PATCH', '/acme/configuration/clients/internal-receiver', await admin(), { ssf_push_internal_endpoints: false });
  expect(taken.status).toBe(200);
  expect(taken.body).not.toHaveProperty('ssf_push_internal_endpoints');
  await setDisabled(true);
  const store = server.app.get<EventStore>(EVENT_STORE);
  let outcomes: Array<{ type: string; error?: string; attempts: number }> = [];
  for (const deadline = Date.now() + 10_000; !outcomes.length && Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const events = await store.readAll({ afterPosition: 0, maxCount: 10_000, filter: { eventTypes: ['SsfSetDeliveryFailed', 'SsfSetDeliveryDeadLettered'] } });
    outcomes = events.filter((e) => (e.data as { streamId: string }).streamId === streamId).map((e) => ({ type: e.type, ...(e.data as { error?: string; attempts: number }) }));
  }
  // No retry could succeed until an administrator acts: the first attempt dead-letters it.
  expect(outcomes.map(({ type, error, attempts }) => ({ type, error, attempts }))).toEqual([{ type: 'SsfSetDeliveryDeadLettered', error: 'delivery.endpoint_url must use https', attempts: 1 }]);
  expect(receiver.taken).toHaveLength(0);
  await setDisabled(false);
});
