import { createHmac, timingSafeEqual } from 'node:crypto';
import { ADMIN_BOOTSTRAP, adminCall, adminToken } from '../support/admin.js';
import type { TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';
import { type Post as WebhookPost, PostReceiver as WebhookReceiver } from '../support/receiver.js';

let server: TestServer;
const contract = endToEnd((s) => {
  ({ server } = s);
  // Retries wait on the server's clock, which the tests move.
  server.clock.freeze();
}, ADMIN_BOOTSTRAP);

const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.down();
});

async function receiver(statuses: number[] = []): Promise<WebhookReceiver> {
  const r = await WebhookReceiver.start('/hooks', statuses);
  receivers.push(r);
  return r;
}

/** A fresh admin token: the tests move the server's clock by hours, past any token's life. */
const admin = () => adminToken(server, 'acme');
const advance = (ms: number) => server.clock.advance(ms);

/**
 * The Standard Webhooks check, written here from the specification (not the server's code):
 * the key is the base64 after `whsec_`; the signed content is `id.timestamp.body`; the header
 * holds space-separated `v1,<base64 HMAC-SHA256>` signatures, one of which must match; the
 * timestamp must be within five minutes of the receiver's clock.
 */
function verifies(secret: string, post: WebhookPost, nowSeconds: number): boolean {
  const id = String(post.headers['webhook-id'] ?? '');
  const timestamp = String(post.headers['webhook-timestamp'] ?? '');
  const header = String(post.headers['webhook-signature'] ?? '');
  if (!id || !/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${post.body}`).digest();
  return header.split(' ').some((s) => {
    const [version, signature] = s.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const serverSeconds = () => Math.floor(server.clock.now().getTime() / 1000);

let subscriptions = 0;
/** A new subscription to `r` (all event types unless given); its representation and secret. */
async function subscribe(r: WebhookReceiver, extra: Record<string, unknown> = {}): Promise<{ id: string; secret: string; body: any }> {
  const res = await adminCall(server, contract, 'POST', '/acme/configuration/webhooks', await admin(), { id: `wh-${++subscriptions}`, url: r.url, ...extra });
  expect(res.status).toBe(201);
  return { id: res.body.id, secret: res.body.secret, body: res.body };
}

/** Subscriptions made by earlier tests would keep receiving: each test ends by deleting its own. */
async function unsubscribe(id: string): Promise<void> {
  expect((await adminCall(server, contract, 'DELETE', `/acme/configuration/webhooks/${id}`, await admin())).status).toBe(204);
}

let bobId: string | undefined;
async function bob(): Promise<string> {
  if (!bobId) bobId = (await adminCall(server, contract, 'GET', '/acme/configuration/users?username=bob', await admin())).body.items[0].id;
  return bobId!;
}

let bobDisabled = false;
/** One feed event at acme: bob disabled (`user.disabled`) or enabled again (`user.enabled`), by turns. */
async function produce(): Promise<'user.disabled' | 'user.enabled'> {
  bobDisabled = !bobDisabled;
  const res = await adminCall(server, contract, 'PATCH', `/acme/configuration/users/${await bob()}`, await admin(), { disabled: bobDisabled });
  expect(res.status).toBe(200);
  return bobDisabled ? 'user.disabled' : 'user.enabled';
}

async function subscription(id: string): Promise<any> {
  const res = await adminCall(server, contract, 'GET', `/acme/configuration/webhooks/${id}`, await admin());
  expect(res.status).toBe(200);
  return res.body;
}

/** Waits (polling the audit trail, not sleeping a fixed time) until `count` outcomes of `type` are recorded for the subscription. */
async function untilOutcomes(subscriptionId: string, type: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await adminCall(server, contract, 'GET', `/acme/configuration/audit/events?type=${type}`, await adminToken(server, 'acme', 'central:audit'));
    const found = (res.body.items as Array<{ data: { subscriptionId?: string } }>).filter((e) => e.data.subscriptionId === subscriptionId).length;
    if (found >= count) return;
    if (Date.now() > deadline) throw new Error(`${found} of ${count} ${type} recorded`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Moves the server's clock a retry's longest delay at a time until `done` holds (each step waits for an attempt to arrive). */
async function failUntil(r: WebhookReceiver, done: () => Promise<boolean>): Promise<void> {
  for (let step = 0; step < 80; step++) {
    if (await done()) return;
    const before = r.taken.length;
    advance(301_000);
    await r.posts(before + 1).catch(() => undefined);
  }
  throw new Error('the condition never held');
}

describe('webhook subscriptions in the admin API', () => {
  it('shows the secret once, at creation and rotation; never in a read, a list or the audit trail', async () => {
    const r = await receiver();
    const created = await adminCall(server, contract, 'POST', '/acme/configuration/webhooks', await admin(), { url: r.url, event_types: ['session.revoked'], description: 'sessions' });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.headers.get('location')).toBe(`${server.issuer('acme')}/configuration/webhooks/${created.body.id}`);
    expect(created.body).toMatchObject({ url: r.url, event_types: ['session.revoked'], enabled: true, status: 'active', description: 'sessions' });
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id: string = created.body.id;

    const read = await adminCall(server, contract, 'GET', `/acme/configuration/webhooks/${id}`, await admin());
    expect(read.body).not.toHaveProperty('secret');
    const list = await adminCall(server, contract, 'GET', '/acme/configuration/webhooks', await admin());
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const audit = await adminCall(server, contract, 'GET', '/acme/configuration/audit/events?type=WebhookSubscriptionCreated', await adminToken(server, 'acme', 'central:audit'));
    expect(JSON.stringify(audit.body)).not.toContain(secret.slice(6, 20));

    const rotated = await adminCall(server, contract, 'POST', `/acme/configuration/webhooks/${id}/secret`, await admin(), undefined, { 'if-match': read.headers.get('etag')! });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    expect((await adminCall(server, contract, 'POST', `/acme/configuration/webhooks/${id}/secret`, await admin(), undefined, { 'if-match': read.headers.get('etag')! })).status).toBe(412);

    const patched = await adminCall(server, contract, 'PATCH', `/acme/configuration/webhooks/${id}`, await admin(), { description: null, event_types: ['*'] });
    expect(patched.status).toBe(200);
    expect(patched.body).not.toHaveProperty('description');
    expect(patched.body.event_types).toEqual(['*']);
    const reader = await adminToken(server, 'acme', 'central:read');
    expect((await adminCall(server, contract, 'GET', `/acme/configuration/webhooks/${id}`, reader)).status).toBe(200);
    expect((await adminCall(server, contract, 'POST', '/acme/configuration/webhooks', reader, { url: r.url })).status).toBe(403);
    await unsubscribe(id);
    expect((await adminCall(server, contract, 'GET', `/acme/configuration/webhooks/${id}`, await admin())).status).toBe(404);
  });

  it('refuses other schemes, credentials in the URL, unknown event types and unknown fields with a 400 naming the fault', async () => {
    const bearer = await admin();
    for (const body of [
      { url: 'ftp://10.0.0.1/hooks' },
      { url: 'https://user:pw@hooks.example.com/in' },
      { url: 'not a url' },
      { url: 'https://hooks.example.com/in', event_types: ['session.ended'] },
      { url: 'https://hooks.example.com/in', event_types: [] },
      { url: 'https://hooks.example.com/in', secret: 'whsec_AAAA' },
    ]) {
      const res = await adminCall(server, contract, 'POST', '/acme/configuration/webhooks', bearer, body);
      expect([body, res.status]).toEqual([body, 400]);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    const ok = await adminCall(server, contract, 'POST', '/acme/configuration/webhooks', bearer, { id: 'plain-http', url: 'http://hooks.example.com/in', enabled: false });
    expect(ok.status).toBe(201);
    expect(ok.body.status).toBe('disabled');
    expect((await adminCall(server, contract, 'POST', '/acme/configuration/webhooks', bearer, { id: 'plain-http', url: 'http://hooks.example.com/in' })).status).toBe(409);
    expect((await adminCall(server, contract, 'POST', '/acme/configuration/webhooks/plain-http/replay', bearer, { after: 'x' })).status).toBe(400);
    await unsubscribe('plain-http');
  });
});

describe('deliveries', () => {
  it('POSTs the CloudEvent signed as Standard Webhooks says, verified independently, once per subscribed type', async () => {
    const r = await receiver();
    const all = await subscribe(r);
    const r2 = await receiver();
    const enabledOnly = await subscribe(r2, { event_types: ['user.enabled'] });
    const first = await produce();
    const second = await produce();
    await r.posts(2);
    await r2.posts(1);
    for (const post of r.taken) {
      expect(post.headers['content-type']).toBe('application/json');
      expect(verifies(all.secret, post, serverSeconds())).toBe(true);
      expect(verifies(enabledOnly.secret, post, serverSeconds())).toBe(false);
      const event = JSON.parse(post.body);
      expect(event).toMatchObject({ specversion: '1.0', source: server.issuer('acme'), id: post.headers['webhook-id'] });
    }
    expect(r.taken.map((p) => JSON.parse(p.body).type)).toEqual([first, second]);
    expect(r2.taken.map((p) => JSON.parse(p.body).type)).toEqual(['user.enabled']);
    expect(verifies(enabledOnly.secret, r2.taken[0], serverSeconds())).toBe(true);
    // A body changed in transit no longer verifies.
    expect(verifies(all.secret, { ...r.taken[0], body: r.taken[0].body.replace('"user.', '"User.') }, serverSeconds())).toBe(false);
    // The outcome is recorded after the receiver's answer is back: wait for it, not for the POST.
    await untilOutcomes(all.id, 'WebhookDelivered', 2);
    const shown = await subscription(all.id);
    expect(shown.last_delivered_at).toBeDefined();
    await unsubscribe(all.id);
    await unsubscribe(enabledOnly.id);
  });

  it('retries a receiver that answers 503 twice; the third attempt, with the same webhook-id and a fresh signature, is taken', async () => {
    const r = await receiver([503, 503]);
    const sub = await subscribe(r);
    await produce();
    await untilOutcomes(sub.id, 'WebhookDeliveryFailed', 1);
    advance(1_000);
    await untilOutcomes(sub.id, 'WebhookDeliveryFailed', 2);
    advance(2_000);
    await untilOutcomes(sub.id, 'WebhookDelivered', 1);
    expect(r.taken).toHaveLength(3);
    const ids = new Set(r.taken.map((p) => p.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect(new Set(r.taken.map((p) => p.headers['webhook-timestamp'])).size).toBe(3);
    for (const post of r.taken) expect(verifies(sub.secret, post, serverSeconds())).toBe(true);
    await unsubscribe(sub.id);
  });

  it('dead-letters a delivery that never succeeds; an administrator redelivers it', async () => {
    const r = await receiver(Array(1000).fill(500));
    const sub = await subscribe(r);
    await produce();
    let dead: any;
    await failUntil(r, async () => {
      const list = await adminCall(server, contract, 'GET', '/acme/configuration/deliveries/dead-letters', await admin());
      dead = list.body.items.find((d: { subscription_id?: string }) => d.subscription_id === sub.id);
      return dead !== undefined;
    });
    expect(dead).toMatchObject({ kind: 'webhook', status: 'dead', last_status: 500, url: r.url });
    // `?kind=` lists one kind's dead letters; an unknown kind is a 400, not an empty page.
    const ofKind = async (kind: string) => adminCall(server, contract, 'GET', `/acme/configuration/deliveries/dead-letters?kind=${kind}`, await admin());
    const webhooks = await ofKind('webhook');
    expect(webhooks.status).toBe(200);
    expect(webhooks.body.items.map((d: { id: string }) => d.id)).toContain(dead.id);
    expect(webhooks.body.items.every((d: { kind: string }) => d.kind === 'webhook')).toBe(true);
    const logouts = await ofKind('backchannel_logout');
    expect(logouts.status).toBe(200);
    expect(logouts.body.items.map((d: { id: string }) => d.id)).not.toContain(dead.id);
    const unknown = await ofKind('carrier_pigeon');
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('content-type')).toContain('application/problem+json');
    r.statuses.length = 0;
    r.taken.length = 0;
    const again = await adminCall(server, contract, 'POST', `/acme/configuration/deliveries/dead-letters/${dead.id}/redeliver`, await admin());
    expect(again.status).toBe(202);
    await r.posts(1);
    expect(r.taken[0].headers['webhook-id']).toBe(dead.event_id);
    expect(verifies(sub.secret, r.taken[0], serverSeconds())).toBe(true);
    await unsubscribe(sub.id);
  });

  it('pauses a subscription after dead letters in a row, holds what comes, and sends it when an administrator resumes it', async () => {
    const r = await receiver(Array(10_000).fill(500));
    const sub = await subscribe(r, { event_types: ['user.disabled', 'user.enabled'] });
    for (let i = 0; i < 5; i++) await produce();
    await failUntil(r, async () => (await subscription(sub.id)).status === 'paused');
    const paused = await subscription(sub.id);
    expect(paused).toMatchObject({ status: 'paused', paused_reason: 'dead_letters', enabled: true });
    expect(paused.dead_letters_in_a_row).toBeGreaterThanOrEqual(5);

    // While paused nothing is attempted: an active subscription to another receiver has the
    // event delivered (so the sender has had it), and the paused one's receiver had no POST.
    const attempts = r.taken.length;
    const witness = await receiver();
    const other = await subscribe(witness, { event_types: ['user.disabled', 'user.enabled'] });
    const held = await produce();
    await witness.posts(1);
    await untilOutcomes(other.id, 'WebhookDelivered', 1);
    advance(301_000);
    await untilOutcomes(other.id, 'WebhookDelivered', 1);
    expect(r.taken).toHaveLength(attempts);
    r.statuses.length = 0;
    const resumed = await adminCall(server, contract, 'POST', `/acme/configuration/webhooks/${sub.id}/resume`, await admin());
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'active', dead_letters_in_a_row: 0 });
    expect(resumed.body).not.toHaveProperty('paused_reason');
    await r.posts(attempts + 1);
    const sent = r.taken.slice(attempts).map((p) => JSON.parse(p.body));
    expect(sent.map((e) => e.type)).toEqual([held]);
    expect(verifies(sub.secret, r.taken[attempts], serverSeconds())).toBe(true);
    await unsubscribe(sub.id);
    await unsubscribe(other.id);
  });

  it('holds a pending retry of a subscription an administrator disabled, and sends it once enabled again', async () => {
    const r = await receiver([500]);
    const sub = await subscribe(r, { event_types: ['user.disabled', 'user.enabled'] });
    // A witness with the same schedule: once its retry is delivered, the sender has had the other's due too.
    const witness = await receiver([500]);
    const other = await subscribe(witness, { event_types: ['user.disabled', 'user.enabled'] });
    await produce();
    await untilOutcomes(sub.id, 'WebhookDeliveryFailed', 1);
    await untilOutcomes(other.id, 'WebhookDeliveryFailed', 1);
    const disabled = await adminCall(server, contract, 'PATCH', `/acme/configuration/webhooks/${sub.id}`, await admin(), { enabled: false });
    expect(disabled.body.status).toBe('disabled');
    advance(1_000);
    await untilOutcomes(other.id, 'WebhookDelivered', 1);
    expect(r.taken).toHaveLength(1);
    const enabled = await adminCall(server, contract, 'PATCH', `/acme/configuration/webhooks/${sub.id}`, await admin(), { enabled: true });
    expect(enabled.body.status).toBe('active');
    await r.posts(2);
    expect(r.taken[1].headers['webhook-id']).toBe(r.taken[0].headers['webhook-id']);
    await unsubscribe(sub.id);
    await unsubscribe(other.id);
  });

  it('signs with the new and the previous secret for the grace period after a rotation, then with the new one only', async () => {
    const r = await receiver();
    const sub = await subscribe(r, { event_types: ['user.disabled', 'user.enabled'] });
    const rotate = async (body?: unknown) => {
      const res = await adminCall(server, contract, 'POST', `/acme/configuration/webhooks/${sub.id}/secret`, await admin(), body);
      expect(res.status).toBe(200);
      return res.body as { secret: string; previous_secret_valid_until: number };
    };
    const latest = async () => {
      await produce();
      await r.posts(r.taken.length + 1);
      return r.taken[r.taken.length - 1];
    };
    const first = sub.secret;
    const rotated = await rotate();
    // The default grace period is a day.
    expect(rotated.previous_secret_valid_until).toBe(serverSeconds() + 86_400);
    expect((await subscription(sub.id)).previous_secret_valid_until).toBe(rotated.previous_secret_valid_until);
    let post = await latest();
    expect(String(post.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(rotated.secret, post, serverSeconds())).toBe(true);
    expect(verifies(first, post, serverSeconds())).toBe(true);

    // Past the grace period, only the new secret signs.
    advance(86_400_000);
    post = await latest();
    expect(String(post.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(rotated.secret, post, serverSeconds())).toBe(true);
    expect(verifies(first, post, serverSeconds())).toBe(false);

    // A rotation with no grace (a leaked secret) stops the previous one at once.
    const urgent = await rotate({ grace_period: 0 });
    post = await latest();
    expect(verifies(urgent.secret, post, serverSeconds())).toBe(true);
    expect(verifies(rotated.secret, post, serverSeconds())).toBe(false);
    for (const bad of [{ grace_period: -1 }, { grace_period: 8 * 86_400 }, { grace_period: 'soon' }, { grace: 10 }]) {
      expect((await adminCall(server, contract, 'POST', `/acme/configuration/webhooks/${sub.id}/secret`, await admin(), bad)).status).toBe(400);
    }
    const audit = await adminCall(server, contract, 'GET', '/acme/configuration/audit/events?type=WebhookSecretRotated', await adminToken(server, 'acme', 'central:audit'));
    for (const secret of [first, rotated.secret, urgent.secret]) expect(JSON.stringify(audit.body)).not.toContain(secret.slice(6, 20));
    await unsubscribe(sub.id);
  });

  it('replays the events after a feed cursor', async () => {
    const r = await receiver();
    const sub = await subscribe(r, { event_types: ['user.disabled'] });
    await produce();
    await produce();
    await produce();
    await produce();
    await r.posts(2);
    const [a, b] = r.taken.map((p) => JSON.parse(p.body));
    expect([a.type, b.type]).toEqual(['user.disabled', 'user.disabled']);
    const replay = await adminCall(server, contract, 'POST', `/acme/configuration/webhooks/${sub.id}/replay`, await admin(), { after: a.cursor });
    expect(replay.status).toBe(202);
    await r.posts(3);
    expect(r.taken[2].headers['webhook-id']).toBe(b.id);
    expect(JSON.parse(r.taken[2].body)).toEqual(b);
    expect(verifies(sub.secret, r.taken[2], serverSeconds())).toBe(true);
    await unsubscribe(sub.id);
  });
});
