import { ADMIN_BOOTSTRAP, ADMIN_SECRET, adminCall, adminToken } from '../support/admin.js';
import { expectResponseMatches } from '../support/openapi.js';
import { SseConsumer } from '../support/sse.js';
import type { TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

/** A feed consumer (client_credentials with events:read) and a client without that scope, at acme; a consumer at beta. */
const feeders = (tenant: string) => `
      - client_id: feeder
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "events:read"
      - client_id: unscoped-${tenant}
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "orders:read"`;
const BOOTSTRAP = ADMIN_BOOTSTRAP.replace('    clients:\n', `    clients:${feeders('acme')}\n`).replace(/(- id: beta\n(?:.*\n)*?    clients:)/, `$1${feeders('beta')}`);

let server: TestServer;
const contract = endToEnd((s) => ({ server } = s), BOOTSTRAP);

const token = (tenant = 'acme', scope = 'events:read', clientId = 'feeder') => adminToken(server, tenant, scope, clientId);

async function page(query: string, bearer?: string): Promise<{ status: number; body: any }> {
  const res = await contract.fetch(`${server.issuer('acme')}/events${query}`, { headers: { authorization: `Bearer ${bearer ?? (await token())}` } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** bob's id at acme. */
async function bob(): Promise<string> {
  const res = await adminCall(server, contract, 'GET', '/acme/configuration/users?username=bob', await adminToken(server, 'acme'));
  return res.body.items[0].id;
}

/** `count` events at acme: bob disabled, enabled, disabled, ... (user.disabled, user.enabled). */
async function produce(count: number): Promise<void> {
  const id = await bob();
  const admin = await adminToken(server, 'acme');
  for (let i = 0; i < count; i++) {
    const res = await adminCall(server, contract, 'GET', `/acme/configuration/users/${id}`, admin);
    expect((await adminCall(server, contract, 'PATCH', `/acme/configuration/users/${id}`, admin, { disabled: !res.body.disabled })).status).toBe(200);
  }
}

/** The cursor at the end of acme's feed now. */
async function end(): Promise<string> {
  let after = '0';
  for (;;) {
    const p = await page(`?after=${after}&limit=1000`);
    if (!p.body.events.length) return p.body.next;
    after = p.body.next;
  }
}

describe('access', () => {
  it('takes only a client token of the tenant with events:read', async () => {
    const url = `${server.issuer('acme')}/events`;
    const none = await contract.fetch(url);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await page('', await token('acme', 'orders:read', 'unscoped-acme'))).status).toBe(403);
    expect((await page('', await adminToken(server, 'acme'))).status).toBe(403);
    expect((await page('', await token('beta'))).status).toBe(401);
    expect((await page('', 'garbage')).status).toBe(401);
  });

  it('refuses a bad cursor, limit or wait, and unknown parameters', async () => {
    for (const q of ['?after=x', '?after=-1', '?limit=0', '?limit=1001', '?wait=31', '?since=1']) expect([q, (await page(q)).status]).toEqual([q, 400]);
  });
});

describe('JSON pages', () => {
  it("lists the tenant's events as CloudEvents, in log order, from the start, page after page", async () => {
    await produce(3);
    const first = await page('?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.events).toHaveLength(2);
    const all: any[] = [];
    let after = '0';
    for (;;) {
      const p = await page(`?after=${after}&limit=2`);
      all.push(...p.body.events);
      after = p.body.next;
      if (!p.body.events.length) break;
    }
    expect(all.slice(0, 2)).toEqual(first.body.events);
    const cursors = all.map((e) => Number(e.cursor));
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    const last = all.slice(-3);
    expect(last.map((e) => e.type)).toEqual(['user.disabled', 'user.enabled', 'user.disabled']);
    expect(last[0]).toMatchObject({ specversion: '1.0', source: server.issuer('acme'), subject: await bob(), datacontenttype: 'application/json', data: { sub: await bob() } });
    // Nothing of another tenant.
    expect(all.every((e) => e.source === server.issuer('acme'))).toBe(true);
  });

  it('long-polls: an empty page waits, and returns as soon as an event arrives', async () => {
    const cursor = await end();
    let answered = false;
    const polled = page(`?after=${cursor}&wait=25`).then((p) => {
      answered = true;
      return p;
    });
    // Another request goes and comes back meanwhile: the poll is still waiting.
    expect((await page(`?after=${cursor}`)).body.events).toEqual([]);
    expect(answered).toBe(false);
    await produce(1);
    const p = await polled;
    expect(p.body.events).toHaveLength(1);
    expect(p.body.events[0].type).toMatch(/^user\./);
    expect(Number(p.body.next)).toBeGreaterThan(Number(cursor));
  });
});

describe('Server-Sent Events', () => {
  const open = async (headers: Record<string, string> = {}, query = '') => {
    const consumer = await SseConsumer.open(`${server.issuer('acme')}/events${query}`, { authorization: `Bearer ${await token()}`, ...headers });
    expect(consumer.status).toBe(200);
    expectResponseMatches('events', 'GET', '/events', { status: consumer.status, headers: consumer.headers, body: 'retry: 1000\n\n' });
    return consumer;
  };

  it('a consumer that disconnects mid-stream and resumes with Last-Event-ID gets every event once, in order', async () => {
    const from = await end();
    const consumer = await open({}, `?after=${from}`);
    await produce(4);
    await consumer.until(2);
    await consumer.close();
    const seen = consumer.events.slice(0, consumer.events.length);
    await produce(4);
    const resumed = await open({ 'last-event-id': seen[seen.length - 1].id });
    await resumed.until(8 - seen.length);
    await produce(1);
    await resumed.until(9 - seen.length);
    await resumed.close();
    const got = [...seen, ...resumed.events];
    const expected = [];
    let after = from;
    for (;;) {
      const p = await page(`?after=${after}`);
      if (!p.body.events.length) break;
      expected.push(...p.body.events);
      after = p.body.next;
    }
    expect(expected).toHaveLength(9);
    expect(got.map((e) => e.data)).toEqual(expected);
    expect(got.map((e) => e.id)).toEqual(expected.map((e) => e.cursor));
  });

  it('starts at the live end without a cursor, and serves 10 consumers at once', async () => {
    await produce(1);
    const consumers = await Promise.all(Array.from({ length: 10 }, () => open()));
    await produce(5);
    await Promise.all(consumers.map((c) => c.until(5)));
    const first = consumers[0].events.map((e) => e.id);
    for (const c of consumers) expect(c.events.map((e) => e.id)).toEqual(first);
    expect(first).toHaveLength(5);
    await Promise.all(consumers.map((c) => c.close()));
  });
});
