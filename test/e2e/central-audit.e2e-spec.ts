import { EVENT_STORE, type EventStore } from '../../src/infrastructure/event-store/event-store.port.js';
import { Browser } from '../support/browser.js';
import { expectResponseMatches } from '../support/openapi.js';
import { decodeJwt, type RelyingParty } from '../support/rp.js';
import { BOOTSTRAP_YAML, extraTenant, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

const ADMIN_SECRET = 'admin-secret-0123456789-0123456789-abcdefgh';
const adminClients = (scopes: string) => `
      - client_id: auditor
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "${scopes}"
      - client_id: reader
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "central:read central:write"`;

/** acme and beta with an auditor (central:audit) and a reader without it each; ops, the operator tenant. */
const BOOTSTRAP = `${BOOTSTRAP_YAML.replace('    clients:\n', `    clients:${adminClients('central:audit')}\n`)}${extraTenant('beta', {}, adminClients('central:audit'))}
  - id: ops
    operator: true
    clients:${adminClients('central:audit')}`;

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd((s) => ({ server, rp } = s), BOOTSTRAP);

async function token(tenant: string, clientId = 'auditor', scope = clientId === 'auditor' ? 'central:audit' : 'central:read'): Promise<string> {
  const res = await fetch(`${server.issuer(tenant)}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${ADMIN_SECRET}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** GET `path` (`/<tenant>/configuration/...`) through the contract-checking fetch. */
async function get(path: string, bearer?: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const tenant = path.split('/')[1];
  const res = await contract.fetch(`${server.issuer(tenant)}${path.slice(tenant.length + 1)}`, { headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: (res.headers.get('content-type') ?? '').startsWith('application/x-ndjson') || !text ? undefined : JSON.parse(text) };
}

interface Item {
  type: string;
  position: number;
  data: Record<string, any>;
  [k: string]: any;
}

/** Every page of a history or of the events, following `next`. */
async function allPages(path: string, bearer: string, limit: number): Promise<Item[]> {
  const items: Item[] = [];
  let next: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await get(`${path}${sep}limit=${limit}${next ? `&after=${next}` : ''}`, bearer);
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    next = res.body.next;
    if (!next) return items;
  }
  throw new Error('no end');
}

/** The lines of an application/x-ndjson answer, each event checked against the AuditEvent schema. */
async function streamed(path: string, bearer: string): Promise<{ events: Item[]; trailer: Record<string, unknown> }> {
  const res = await get(path, bearer, { accept: 'application/x-ndjson' });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const lines = res.text.split('\n');
  expect(lines.pop()).toBe('');
  const parsed = lines.map((l) => JSON.parse(l));
  const trailer = parsed.pop();
  expectResponseMatches('central', 'GET', '/configuration/audit/events', { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-request-id': res.headers.get('x-request-id')! }, body: { items: parsed } });
  return { events: parsed, trailer };
}

const types = (items: Item[]) => items.map((i) => i.type);

describe('audit: who may read it', () => {
  it('answers 401 without a token, 403 insufficient_scope without central:audit, 403 to another tenant, and the operator everywhere', async () => {
    const paths = ['/acme/configuration/audit/events', '/acme/configuration/audit/clients/web', '/acme/configuration/audit/tokens/x', '/acme/configuration/audit/sessions/x', '/acme/configuration/audit/subjects/x'];
    const [reader, beta, ops] = [await token('acme', 'reader', 'central:read central:write'), await token('beta'), await token('ops')];
    for (const path of paths) {
      const none = await get(path);
      expect([path, none.status, none.headers.get('www-authenticate')]).toEqual([path, 401, 'Bearer']);
      const scoped = await get(path, reader);
      expect([path, scoped.status, scoped.body.error]).toEqual([path, 403, 'insufficient_scope']);
      expect(scoped.headers.get('www-authenticate')).toMatch(/scope="central:audit"/);
      const other = await get(path, beta);
      expect([path, other.status, other.body.items]).toEqual([path, 403, undefined]);
    }
    expect((await get('/acme/configuration/audit/events', ops)).status).toBe(200);
    expect((await get('/acme/configuration/audit/clients/reader', ops)).status).toBe(200);
    expect((await get('/nope/configuration/audit/events', ops)).status).toBe(404);
  });
});

describe('audit: the history of every token, from issue to revocation', () => {
  it('follows a session through sign-in, refresh, revocation and logout, by session, subject, client and token', async () => {
    const browser = rp.browser();
    const tokens = await rp.tokens({}, browser);
    const { sid, sub } = decodeJwt(tokens.id_token!).payload as { sid: string; sub: string };
    const refreshed = await rp.refresh('web', tokens.refresh_token!);
    const [jti1, jti2] = [tokens.access_token, refreshed.access_token].map((t) => decodeJwt(t).payload.jti as string);
    await rp.revoke(refreshed.access_token, 'web', 'access_token');
    const page = await browser.get(`${rp.as.end_session_endpoint}?client_id=web`);
    const form = Browser.form(await page.text());
    expect((await browser.post(form.action, form.fields)).status).toBe(200);
    const t = await token('acme');

    const session = await get(`/acme/configuration/audit/sessions/${sid}`, t);
    expect(session.status).toBe(200);
    expect(session.headers.get('cache-control')).toBe('no-store');
    expect(types(session.body.items)).toEqual([
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
    const positions = session.body.items.map((i: Item) => i.position);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(session.body.items[4]).toMatchObject({ session_id: sid, sub, client_id: 'web', jti: jti1, actor: 'client:web', data: { jti: jti1 } });
    expect(JSON.stringify(session.body)).not.toContain(tokens.refresh_token!);

    // A token: its own events, then the end of its grant (the session's end, showing that grant only).
    const first = await get(`/acme/configuration/audit/tokens/${encodeURIComponent(jti1)}`, t);
    expect(types(first.body.items)).toEqual(['AccessTokenIssued', 'SessionRevoked']);
    const grantId = first.body.items[0].grant_id;
    expect(first.body.items[1].data.grants).toEqual([{ grantId, clientId: 'web' }]);
    const second = await get(`/acme/configuration/audit/tokens/${encodeURIComponent(jti2)}`, t);
    expect(types(second.body.items)).toEqual(['AccessTokenIssued', 'TokenRevoked', 'SessionRevoked']);
    expect(second.body.items[1]).toMatchObject({ jti: jti2, data: { tokenType: 'access_token', reason: expect.any(String) } });

    const subject = await allPages(`/acme/configuration/audit/subjects/${sub}`, t, 1000);
    expect(subject.filter((i) => i.session_id === sid || i.data.sessionId === sid).map((i) => i.event_id)).toEqual(session.body.items.map((i: Item) => i.event_id));
    const client = await allPages('/acme/configuration/audit/clients/web', t, 1000);
    expect(client.filter((i) => i.data.sessionId === sid).map((i) => i.type)).toEqual(['CodeIssued', 'CodeRedeemed', 'AccessTokenIssued', 'RefreshTokenIssued', 'RefreshRotated', 'AccessTokenIssued', 'TokenRevoked', 'SessionRevoked']);
  });

  it("shows the revocation of a grant's refresh token as the end of its access tokens, and a client's own token alone", async () => {
    const tokens = await rp.tokens();
    const jti = decodeJwt(tokens.access_token).payload.jti as string;
    await rp.revoke(tokens.refresh_token!, 'web', 'refresh_token');
    const service = await rp.clientCredentials('service');
    const serviceJti = decodeJwt(service.access_token).payload.jti as string;
    await rp.revoke(service.access_token, 'service');
    const t = await token('acme');
    const grant = await get(`/acme/configuration/audit/tokens/${encodeURIComponent(jti)}`, t);
    expect(types(grant.body.items)).toEqual(['AccessTokenIssued', 'GrantRevoked']);
    expect(grant.body.items[1].data).toMatchObject({ reason: 'refresh_revoked', grantId: grant.body.items[0].grant_id });
    const own = await get(`/acme/configuration/audit/tokens/${encodeURIComponent(serviceJti)}`, t);
    expect(types(own.body.items)).toEqual(['AccessTokenIssued', 'TokenRevoked']);
    expect(own.body.items[0]).toMatchObject({ client_id: 'service', sub: 'service', data: { grantType: 'client_credentials' } });
  });

  it('answers 404 for a session, subject, client or token of which nothing is recorded, here or in this tenant', async () => {
    const t = await token('acme');
    const tokens = await rp.tokens();
    const { sid } = decodeJwt(tokens.id_token!).payload as { sid: string };
    const jti = decodeJwt(tokens.access_token).payload.jti as string;
    for (const path of ['sessions/nope', 'subjects/nope', 'clients/nope', 'tokens/nope', `tokens/forged.${jti.split('.')[1]}`]) {
      const res = await get(`/acme/configuration/audit/${path}`, t);
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 404, expect.stringMatching(/^application\/problem\+json/)]);
    }
    const beta = await token('beta');
    expect((await get(`/beta/configuration/audit/sessions/${sid}`, beta)).status).toBe(404);
    expect((await get(`/beta/configuration/audit/tokens/${encodeURIComponent(jti)}`, beta)).status).toBe(404);
  });

  it('pages a history with the cursor, without gaps or repeats', async () => {
    await rp.tokens();
    const t = await token('acme');
    const whole = (await get('/acme/configuration/audit/clients/web?limit=1000', t)).body.items as Item[];
    expect(whole.length).toBeGreaterThan(10);
    const paged = await allPages('/acme/configuration/audit/clients/web', t, 3);
    expect(paged.map((i) => i.event_id)).toEqual(whole.map((i) => i.event_id));
    for (const q of ['limit=0', 'limit=1001', 'after=x', 'colour=red']) expect([q, (await get(`/acme/configuration/audit/clients/web?${q}`, t)).status]).toEqual([q, 400]);
    const past = await get(`/acme/configuration/audit/clients/web?after=${whole.at(-1)!.position}`, t);
    expect([past.status, past.body]).toEqual([200, { items: [] }]);
  });
});

describe('audit: the event log', () => {
  it("pages through the tenant's events in log order, no other tenant's, and streams the same range as ndjson", async () => {
    const beta = await token('beta');
    const t = await token('acme');
    await rp.tokens();
    const paged = await allPages('/acme/configuration/audit/events', t, 7);
    const positions = paged.map((e) => e.position);
    expect(new Set(positions).size).toBe(positions.length);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(paged.every((e) => e.metadata.tenantId === 'acme')).toBe(true);
    expect(types(paged)).toEqual(expect.arrayContaining(['TenantCreated', 'ClientCreated', 'UserCreated', 'SessionStarted', 'AccessTokenIssued']));
    const { events, trailer } = await streamed('/acme/configuration/audit/events', t);
    const head = await server.app.get<EventStore>(EVENT_STORE).headPosition();
    expect(events.map((e) => e.id).slice(0, paged.length)).toEqual(paged.map((e) => e.id));
    expect(Number(trailer.next)).toBeLessThanOrEqual(head);
    expect(Number(trailer.next)).toBeGreaterThanOrEqual(events.at(-1)!.position);
    // Resumed from its cursor, the stream carries only what came after.
    await rp.clientCredentials('service');
    const resumed = await streamed(`/acme/configuration/audit/events?after=${trailer.next}`, t);
    expect(types(resumed.events)).toEqual(['AccessTokenIssued']);
    const limited = await streamed('/acme/configuration/audit/events?limit=5', t);
    expect([limited.events.map((e) => e.id), limited.trailer]).toEqual([paged.slice(0, 5).map((e) => e.id), { next: String(paged[4].position) }]);
    expect((await get('/beta/configuration/audit/events?limit=1000', beta)).body.items.every((e: Item) => e.metadata.tenantId === 'beta')).toBe(true);
  });

  it('withholds password hashes, sealed signing keys and client secret digests', async () => {
    const t = await token('acme');
    const { events } = await streamed('/acme/configuration/audit/events?type=UserCreated,SigningKeyGenerated,ClientCreated', t);
    const recorded = await server.app.get<EventStore>(EVENT_STORE).readAll();
    const secrets = recorded.flatMap((e) => {
      const d = e.data as Record<string, any>;
      return [d.passwordHash, d.encryptedPrivateKey, d.secretDigest?.hash].filter((v): v is string => typeof v === 'string');
    });
    expect(secrets.length).toBeGreaterThan(5);
    const text = JSON.stringify(events);
    for (const s of secrets) expect(text).not.toContain(s);
    expect(events.find((e) => e.type === 'UserCreated')!.data).toMatchObject({ username: 'alice', passwordHash: '[withheld]' });
    expect(events.find((e) => e.type === 'SigningKeyGenerated')!.data).toMatchObject({ encryptedPrivateKey: '[withheld]', publicJwk: expect.any(Object) });
    expect(events.find((e) => e.type === 'ClientCreated' && e.data.clientId === 'web')!.data.secretDigest).toEqual({ scheme: 'hmac-sha256', hash: '[withheld]' });
  });

  it('filters by type (repeated or a comma list), stream, actor and time', async () => {
    const tokens = await rp.tokens();
    const { sid } = decodeJwt(tokens.id_token!).payload as { sid: string };
    const t = await token('acme');
    const byType = await allPages('/acme/configuration/audit/events?type=RefreshTokenIssued&type=CodeRedeemed,CodeIssued', t, 1000);
    expect(new Set(types(byType))).toEqual(new Set(['RefreshTokenIssued', 'CodeRedeemed', 'CodeIssued']));
    const stream = await allPages(`/acme/configuration/audit/events?stream=session-acme.${sid}`, t, 1000);
    expect(types(stream)).toEqual(['SessionStarted', 'UserAuthenticated', 'CodeIssued', 'CodeRedeemed', 'AccessTokenIssued', 'RefreshTokenIssued']);
    expect(stream.every((e) => e.stream === `session-acme.${sid}` && e.revision === stream.indexOf(e))).toBe(true);
    const byActor = await allPages('/acme/configuration/audit/events?actor=client:service', t, 1000);
    expect(byActor.length).toBeGreaterThan(0);
    expect(byActor.every((e) => e.metadata.actor === 'client:service')).toBe(true);

    // Time: the clock moves on a day, then one more token is issued.
    server.clock.advance(24 * 3600_000);
    const since = server.clock.now().toISOString();
    const later = await token('acme');
    const after = await allPages(`/acme/configuration/audit/events?since=${since}`, later, 1000);
    expect(types(after)).toEqual(['AccessTokenIssued']);
    expect(after[0].data.clientId).toBe('auditor');
    const before = await allPages(`/acme/configuration/audit/events?until=${since}&type=AccessTokenIssued`, later, 1000);
    expect(before.map((e) => e.id)).not.toContain(after[0].id);
    expect(before.length).toBeGreaterThan(3);
    for (const q of ['limit=1001', 'since=yesterday', 'type=no-such', 'after=-1', `since=${since}&until=${since}`, 'colour=red']) {
      const res = await get(`/acme/configuration/audit/events?${q}`, later);
      expect([q, res.status, res.body.errors?.length]).toEqual([q, 400, 1]);
    }
    expect((await get('/acme/configuration/audit/events?limit=100000', later, { accept: 'application/x-ndjson' })).status).toBe(200);
  });
});
