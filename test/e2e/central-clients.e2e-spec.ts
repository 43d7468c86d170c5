import { exportJWK, generateKeyPair } from 'jose';
import * as oauth from 'oauth4webapi';
import { endToEnd } from '../support/suite.js';
import { REDIRECT, type TestServer } from '../support/server.js';
import { ADMIN_BOOTSTRAP, adminCall, adminToken } from '../support/admin.js';
import type { RelyingParty } from '../support/rp.js';
import { EVENT_STORE, type EventStore } from '../../src/infrastructure/event-store/event-store.port.js';

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd((s) => ({ server, rp } = s), ADMIN_BOOTSTRAP);

const token = (tenant: string, scope?: string, clientId?: string) => adminToken(server, tenant, scope, clientId);
const call = (method: string, path: string, bearer: string | undefined, body?: unknown, headers?: Record<string, string>) => adminCall(server, contract, method, path, bearer, body, headers);

describe('admin API: who may call it', () => {
  it('answers 401 with a bare Bearer challenge without a token, and invalid_token for a bad one', async () => {
    const none = await call('GET', '/acme/configuration/clients', undefined);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const bad = await call('GET', '/acme/configuration/clients', 'not-a-token');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });

  it('never takes a token from the query string', async () => {
    const t = await token('acme');
    const res = await contract.fetch(`${server.issuer('acme')}/configuration/clients?access_token=${t}`);
    expect(res.status).toBe(401);
    const both = await contract.fetch(`${server.issuer('acme')}/configuration/clients?access_token=${t}`, { headers: { authorization: `Bearer ${t}` } });
    expect(both.status).toBe(400);
  });

  it('answers 403 insufficient_scope to a token without the scope of the route', async () => {
    const reader = await token('acme', 'central:read', 'reader');
    expect((await call('GET', '/acme/configuration/clients', reader)).status).toBe(200);
    const res = await call('POST', '/acme/configuration/clients', reader, { client_name: 'x', grant_types: ['client_credentials'] });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope"/);
    expect(res.body).toMatchObject({ status: 403, error: 'insufficient_scope' });
  });

  it("answers 403, and no data, to another tenant's token; the operator's token works everywhere", async () => {
    const beta = await token('beta');
    const res = await call('GET', '/acme/configuration/clients', beta);
    expect(res.status).toBe(403);
    expect(res.body.items).toBeUndefined();
    const ops = await token('ops');
    const listed = await call('GET', '/acme/configuration/clients?limit=200', ops);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((c: { client_id: string }) => c.client_id)).toContain('web');
    expect((await call('GET', '/nope/configuration/clients', ops)).status).toBe(404);
  });

  it('never grants the admin scopes to a user through the authorization flow', async () => {
    const tokens = await rp.tokens({ clientId: 'web', scope: 'openid central:read' });
    expect(tokens.scope).toBe('openid');
  });
});

describe('admin API: clients', () => {
  it('creates a client with a server-generated secret shown once, which authenticates at the token endpoint', async () => {
    const t = await token('acme');
    const created = await call('POST', '/acme/configuration/clients', t, { client_id: 'svc-1', grant_types: ['client_credentials'], scope: 'orders:read' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${server.issuer('acme')}/configuration/clients/svc-1`);
    expect(created.headers.get('etag')).toBe('"0"');
    expect(created.body).toMatchObject({ client_id: 'svc-1', token_endpoint_auth_method: 'client_secret_basic', client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const res = await oauth.clientCredentialsGrantRequest(rp.as, { client_id: 'svc-1' }, oauth.ClientSecretBasic(created.body.client_secret), new URLSearchParams({ scope: 'orders:read' }), rp.options);
    expect((await oauth.processClientCredentialsResponse(rp.as, { client_id: 'svc-1' }, res)).scope).toBe('orders:read');
    // Read back: no secret, no hash.
    const read = await call('GET', '/acme/configuration/clients/svc-1', t);
    expect(read.body).not.toHaveProperty('client_secret');
    expect(JSON.stringify(read.body)).not.toMatch(/hmac|sha256/);
    expect((await call('POST', '/acme/configuration/clients', t, { client_id: 'svc-1', grant_types: ['client_credentials'] })).status).toBe(409);
  });

  it('registers the metadata of PAR and JAR: public keys (jwks) only, an algorithm, and whether requests must be pushed or signed', async () => {
    const t = await token('acme');
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwks = { keys: [await exportJWK(publicKey)] };
    const metadata = { jwks, request_object_signing_alg: 'ES256', require_signed_request_object: true, require_pushed_authorization_requests: true };
    const created = await call('POST', '/acme/configuration/clients', t, { client_id: 'jar-1', redirect_uris: [REDIRECT], ...metadata });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject(metadata);
    const refused = await call('POST', '/acme/configuration/clients', t, { client_id: 'jar-2', redirect_uris: [REDIRECT], jwks: { keys: [await exportJWK(privateKey)] } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('register public keys only');
    expect((await call('POST', '/acme/configuration/clients', t, { client_id: 'jar-3', redirect_uris: [REDIRECT], request_object_signing_alg: 'none' })).status).toBe(400);
    expect((await call('POST', '/acme/configuration/clients', t, { client_id: 'jar-4', redirect_uris: [REDIRECT], require_signed_request_object: true })).status).toBe(400);
  });

  it('refuses unknown fields and bad values with the path of each', async () => {
    const t = await token('acme');
    const res = await call('POST', '/acme/configuration/clients', t, { client_id: 'bad id', redirect_uris: ['ok', 7], colour: 'red' });
    expect(res.status).toBe(400);
    expect([...new Set(res.body.errors.map((e: { path: string }) => e.path))].sort()).toEqual(['client_id', 'colour', 'redirect_uris']);
    const domain = await call('POST', '/acme/configuration/clients', t, { client_id: 'js', redirect_uris: ['javascript:alert(1)'] });
    expect(domain.status).toBe(400);
    expect((await call('POST', '/acme/configuration/clients', t, '{"client_id": ')).status).toBe(400);
    expect((await call('POST', '/acme/configuration/clients', t, 'x', { 'content-type': 'text/xml' })).status).toBe(415);
    expect((await call('POST', '/acme/configuration/clients', t, JSON.stringify({ client_name: 'x'.repeat(70_000) }))).status).toBe(413);
    expect((await call('POST', '/acme/configuration/clients', t, '{"__proto__": {"x": 1}}')).status).toBe(400);
    expect((await call('GET', '/acme/configuration/clients?limit=0', t)).status).toBe(400);
    const put = await fetch(`${server.issuer('acme')}/configuration/clients`, { method: 'PUT', headers: { authorization: `Bearer ${t}` } });
    expect([put.status, put.headers.get('allow'), put.headers.get('content-type')]).toEqual([405, 'GET, POST', expect.stringMatching(/^application\/problem\+json/)]);
  });

  it('refuses the client ids that routes under /configuration/clients/ shadow, naming client_id', async () => {
    const t = await token('acme');
    for (const clientId of ['edge-certificate', '.', '..']) {
      const res = await call('POST', '/acme/configuration/clients', t, { client_id: clientId, grant_types: ['client_credentials'] });
      expect([clientId, res.status, res.headers.get('content-type')]).toEqual([clientId, 400, expect.stringMatching(/^application\/problem\+json/)]);
      expect(res.body.errors).toEqual([{ path: 'client_id', detail: expect.stringContaining('reserved') }]);
    }
    // A name that only starts like one is an ordinary id.
    expect((await call('POST', '/acme/configuration/clients', t, { client_id: 'edge-certificate-2', grant_types: ['client_credentials'] })).status).toBe(201);
  });

  it('pages through the list in the order of ids', async () => {
    const t = await token('beta');
    for (const id of ['p-a', 'p-b', 'p-c']) expect((await call('POST', '/beta/configuration/clients', t, { client_id: id, redirect_uris: [REDIRECT] })).status).toBe(201);
    const first = await call('GET', '/beta/configuration/clients?limit=2', t);
    expect(first.body.items.map((c: { client_id: string }) => c.client_id)).toEqual(['admin', 'p-a']);
    const second = await call('GET', `/beta/configuration/clients?limit=2&after=${first.body.next}`, t);
    expect(second.body.items.map((c: { client_id: string }) => c.client_id)).toEqual(['p-b', 'p-c']);
    const third = await call('GET', `/beta/configuration/clients?limit=2&after=${second.body.next}`, t);
    expect(third.body.items.map((c: { client_id: string }) => c.client_id)).toEqual(['reader', 'web']);
    expect(third.body.next).toBeUndefined();
  });

  it('patches with JSON Merge Patch; of two patches with the same ETag, one gets 412', async () => {
    const t = await token('acme');
    await call('POST', '/acme/configuration/clients', t, { client_id: 'patched', redirect_uris: [REDIRECT], scope: 'openid profile' });
    const read = await call('GET', '/acme/configuration/clients/patched', t);
    const etag = read.headers.get('etag')!;
    const first = await call('PATCH', '/acme/configuration/clients/patched', t, { client_name: 'Patched', scope: 'openid' }, { 'if-match': etag });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ client_name: 'Patched', scope: 'openid', redirect_uris: [REDIRECT] });
    expect(first.headers.get('etag')).toBe('"1"');
    const second = await call('PATCH', '/acme/configuration/clients/patched', t, { client_name: 'Lost' }, { 'if-match': etag });
    expect(second.status).toBe(412);
    // null resets a member to its default.
    const reset = await call('PATCH', '/acme/configuration/clients/patched', t, { client_name: null });
    expect(reset.body).not.toHaveProperty('client_name');
    expect((await call('PATCH', '/acme/configuration/clients/patched', t, { client_id: 'other' })).status).toBe(400);
    expect((await call('PATCH', '/acme/configuration/clients/nobody', t, { client_name: 'x' })).status).toBe(404);
  });

  it('applies a changed redirect URI to the very next authorization request', async () => {
    const t = await token('acme');
    const before = await rp.browser().get((await rp.request({ clientId: 'third', scope: 'openid email' })).url);
    expect(before.status).toBe(302);
    const etag = (await call('GET', '/acme/configuration/clients/third', t)).headers.get('etag')!;
    expect((await call('PATCH', '/acme/configuration/clients/third', t, { redirect_uris: ['http://127.0.0.1:9999/elsewhere'] }, { 'if-match': etag })).status).toBe(200);
    const after = await rp.browser().get((await rp.request({ clientId: 'third', scope: 'openid email' })).url);
    expect(after.status).toBe(400);
  });

  it("rotates a secret: the new one works at once, the old one for its grace period only", async () => {
    const t = await token('acme');
    const created = await call('POST', '/acme/configuration/clients', t, { client_id: 'rotating', grant_types: ['client_credentials'], scope: 'orders:read' });
    const oldSecret = created.body.client_secret as string;
    const rotated = await call('POST', '/acme/configuration/clients/rotating/secret', t, { grace_period: 60 });
    expect(rotated.status).toBe(200);
    const grant = (secret: string) =>
      fetch(`${server.issuer('acme')}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`rotating:${secret}`).toString('base64')}` },
        body: 'grant_type=client_credentials',
      }).then((r) => r.status);
    expect(await grant(rotated.body.client_secret)).toBe(200);
    expect(await grant(oldSecret)).toBe(200);
    server.clock.advance(61_000);
    expect(await grant(oldSecret)).toBe(401);
    expect(await grant(rotated.body.client_secret)).toBe(200);
    // A rotation with no grace kills the previous one at once.
    const again = await call('POST', '/acme/configuration/clients/rotating/secret', t, { grace_period: 0 });
    expect(await grant(rotated.body.client_secret)).toBe(401);
    expect(await grant(again.body.client_secret)).toBe(200);
  });

  it("deletes a client: its tokens introspect inactive, it authenticates no more, and its id is never given again", async () => {
    const t = await token('acme');
    const created = await call('POST', '/acme/configuration/clients', t, { client_id: 'doomed', grant_types: ['client_credentials'], scope: 'orders:read' });
    const auth = `Basic ${Buffer.from(`doomed:${created.body.client_secret}`).toString('base64')}`;
    // A token for a resource whose server (web) may introspect it: it sees the token live, then dead.
    expect((await call('POST', '/acme/configuration/resources', t, { id: 'orders', identifier: 'https://api.example.com/orders', scopes: ['orders:read'], introspection_clients: ['web'] })).status).toBe(201);
    const issued = await fetch(`${server.issuer('acme')}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth }, body: 'grant_type=client_credentials&resource=https%3A%2F%2Fapi.example.com%2Forders' });
    const { access_token: accessToken } = (await issued.json()) as { access_token: string };
    expect(await rp.active(accessToken, 'web')).toBe(true);
    expect((await call('DELETE', '/acme/configuration/clients/doomed', t, undefined, { 'if-match': '"7"' })).status).toBe(412);
    expect((await call('DELETE', '/acme/configuration/clients/doomed', t)).status).toBe(204);
    expect(await rp.active(accessToken, 'web')).toBe(false);
    const refused = await fetch(`${server.issuer('acme')}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth }, body: 'grant_type=client_credentials' });
    expect(refused.status).toBe(401);
    expect((await call('GET', '/acme/configuration/clients/doomed', t)).status).toBe(404);
    expect((await call('POST', '/acme/configuration/clients', t, { client_id: 'doomed', grant_types: ['client_credentials'] })).status).toBe(409);
    // The client's token history ends with its deletion, by whom.
    const history = await call('GET', '/acme/configuration/audit/clients/doomed', t);
    expect(history.body.items.map((e: { type: string; actor: string }) => [e.type, e.actor])).toEqual([
      ['AccessTokenIssued', 'client:doomed'],
      ['ClientDeleted', 'client:admin'],
    ]);
  });

  it('records every change on the client stream with the caller as actor', async () => {
    const t = await token('acme');
    await call('POST', '/acme/configuration/clients', t, { client_id: 'audited', redirect_uris: [REDIRECT] });
    await call('PATCH', '/acme/configuration/clients/audited', t, { client_name: 'A' });
    await call('POST', '/acme/configuration/clients/audited/secret', t);
    await call('DELETE', '/acme/configuration/clients/audited', t);
    const events = await server.app.get<EventStore>(EVENT_STORE).readStream('client-acme.audited');
    expect(events.map((e) => [e.type, e.metadata.actor])).toEqual([
      ['ClientCreated', 'client:admin'],
      ['ClientUpdated', 'client:admin'],
      ['ClientSecretRotated', 'client:admin'],
      ['ClientDeleted', 'client:admin'],
    ]);
    expect(JSON.stringify(events)).not.toMatch(/"client_secret"/);
  });
});
