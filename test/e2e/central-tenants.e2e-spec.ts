import { ADMIN_BOOTSTRAP, ADMIN_SECRET, adminCall, adminToken } from '../support/admin.js';
import type { TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

let server: TestServer;
const contract = endToEnd((s) => ({ server } = s), ADMIN_BOOTSTRAP);

const token = (tenant: string, scope?: string, clientId?: string) => adminToken(server, tenant, scope, clientId);
const call = (method: string, path: string, bearer: string | undefined, body?: unknown, headers?: Record<string, string>) => adminCall(server, contract, method, path, bearer, body, headers);

describe('admin API: tenants (operator only)', () => {
  it("lists, creates and reads tenants with the operator's token; any other tenant's token gets 403", async () => {
    const ops = await token('ops');
    const listed = await call('GET', '/configuration/tenants', ops);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((t: { id: string }) => t.id)).toEqual(['acme', 'beta', 'ops', 'other']);
    expect(listed.body.items.find((t: { id: string }) => t.id === 'ops').operator).toBe(true);
    expect((await call('GET', '/configuration/tenants', await token('acme'))).status).toBe(403);
    const created = await call('POST', '/configuration/tenants', ops, { id: 'gamma', access_token_ttl: 120 });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${server.baseUrl}/configuration/tenants/gamma`);
    expect(created.body).toMatchObject({ id: 'gamma', access_token_ttl: 120, signing_alg: 'ES256', operator: false });
    // The new tenant serves at once.
    const metadata = await fetch(`${server.issuer('gamma')}/.well-known/openid-configuration`);
    expect(metadata.status).toBe(200);
    expect((await call('POST', '/configuration/tenants', ops, { id: 'gamma' })).status).toBe(409);
    expect((await call('POST', '/configuration/tenants', ops, { id: 'configuration' })).status).toBe(400);
    expect((await call('POST', '/configuration/tenants', ops, { id: 'delta', operator: true })).status).toBe(400);
    const page = await call('GET', '/configuration/tenants?limit=2&after=beta', ops);
    expect(page.body.items.map((t: { id: string }) => t.id)).toEqual(['gamma', 'ops']);
    expect((await call('GET', '/configuration/tenants/nope', ops)).status).toBe(404);
  });

  it("changes a tenant's settings by merge patch; they apply to the next token; a stale If-Match gets 412", async () => {
    const ops = await token('ops');
    const read = await call('GET', '/configuration/tenants/beta', ops);
    const patched = await call('PATCH', '/configuration/tenants/beta', ops, { access_token_ttl: 60 }, { 'if-match': read.headers.get('etag')! });
    expect(patched.status).toBe(200);
    expect(patched.body.access_token_ttl).toBe(60);
    expect((await call('PATCH', '/configuration/tenants/beta', ops, { access_token_ttl: 90 }, { 'if-match': read.headers.get('etag')! })).status).toBe(412);
    const t = await fetch(`${server.issuer('beta')}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`admin:${ADMIN_SECRET}`).toString('base64')}` },
      body: 'grant_type=client_credentials',
    });
    expect(((await t.json()) as { expires_in: number }).expires_in).toBe(60);
    // The operator flag is nobody's to set.
    expect((await call('PATCH', '/configuration/tenants/beta', ops, { operator: true })).status).toBe(400);
  });
});

describe("admin API: the tenant's own settings", () => {
  it('reads and patches them with its own token; null resets one to its default', async () => {
    const acme = await token('acme');
    const read = await call('GET', '/acme/configuration/settings', acme);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ security_profile: 'baseline', access_token_ttl: 300 });
    const patched = await call('PATCH', '/acme/configuration/settings', acme, { session_max_age: 3600 });
    expect(patched.body.session_max_age).toBe(3600);
    const reset = await call('PATCH', '/acme/configuration/settings', acme, { session_max_age: null });
    expect(reset.body.session_max_age).toBe(604800);
    expect((await call('PATCH', '/acme/configuration/settings', acme, { access_token_ttl: 0 })).status).toBe(400);
    expect((await call('PATCH', '/acme/configuration/settings', await token('acme', 'central:read', 'reader'), { access_token_ttl: 100 })).status).toBe(403);
    expect((await call('GET', '/acme/configuration/settings', await token('beta'))).status).toBe(403);
  });
});

describe("admin API: the tenant's PAR setting", () => {
  it('requires pushed authorization requests at the next request once set, and says so in discovery', async () => {
    const acme = await token('acme');
    const discovery = async () => ((await (await fetch(`${server.issuer('acme')}/.well-known/openid-configuration`)).json()) as { require_pushed_authorization_requests: boolean }).require_pushed_authorization_requests;
    expect(await discovery()).toBe(false);
    const patched = await call('PATCH', '/acme/configuration/settings', acme, { require_pushed_authorization_requests: true });
    expect([patched.status, patched.body.require_pushed_authorization_requests]).toEqual([200, true]);
    expect(await discovery()).toBe(true);
    const reset = await call('PATCH', '/acme/configuration/settings', acme, { require_pushed_authorization_requests: null });
    expect(reset.body.require_pushed_authorization_requests).toBe(false);
    expect(await discovery()).toBe(false);
  });
});

describe('admin API: deleting a tenant', () => {
  it("ends every token of it: its endpoints answer 404, its admin tokens are refused; its id is never given again", async () => {
    const ops = await token('ops');
    expect((await call('POST', '/configuration/tenants', ops, { id: 'doomed' })).status).toBe(201);
    const issue = () =>
      fetch(`${server.issuer('doomed')}/.well-known/openid-configuration`).then((r) => r.status);
    expect(await issue()).toBe(200);
    expect((await call('DELETE', '/configuration/tenants/ops', ops)).status).toBe(400);
    expect((await call('DELETE', '/configuration/tenants/doomed', ops, undefined, { 'if-match': '"9"' })).status).toBe(412);
    const betaAdmin = await token('beta');
    expect((await call('DELETE', '/configuration/tenants/beta', ops)).status).toBe(204);
    expect((await call('GET', '/beta/configuration/clients', betaAdmin)).status).toBe(401);
    expect((await fetch(`${server.issuer('beta')}/token`, { method: 'POST', body: 'grant_type=client_credentials', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(404);
    expect((await call('GET', '/configuration/tenants/beta', ops)).status).toBe(404);
    expect((await call('POST', '/configuration/tenants', ops, { id: 'beta' })).status).toBe(409);
    expect((await call('DELETE', '/configuration/tenants/doomed', ops)).status).toBe(204);
    expect(await issue()).toBe(404);
  });
});

describe('admin API: system settings (operator only)', () => {
  it('sets the defaults new tenants start from; existing tenants keep theirs; null removes one', async () => {
    const ops = await token('ops');
    expect((await call('GET', '/configuration/system-settings', await token('acme'))).status).toBe(403);
    expect((await call('GET', '/configuration/system-settings', ops)).body).toEqual({ tenant_defaults: {} });
    const patched = await call('PATCH', '/configuration/system-settings', ops, { tenant_defaults: { access_token_ttl: 900, session_max_age: 7200 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ tenant_defaults: { access_token_ttl: 900, session_max_age: 7200 } });
    expect(patched.headers.get('etag')).toBe('"0"');
    expect((await call('POST', '/configuration/tenants', ops, { id: 'eps' })).body).toMatchObject({ access_token_ttl: 900, session_max_age: 7200 });
    expect((await call('POST', '/configuration/tenants', ops, { id: 'zeta', access_token_ttl: 120 })).body).toMatchObject({ access_token_ttl: 120, session_max_age: 7200 });
    expect((await call('GET', '/configuration/tenants/acme', ops)).body.access_token_ttl).toBe(300);
    expect((await call('PATCH', '/configuration/system-settings', ops, { tenant_defaults: { access_token_ttl: 0 } })).status).toBe(400);
    expect((await call('PATCH', '/configuration/system-settings', ops, { tenant_defaults: { colour: 'red' } })).status).toBe(400);
    expect((await call('PATCH', '/configuration/system-settings', ops, { tenant_defaults: { access_token_ttl: 60 } }, { 'if-match': '"7"' })).status).toBe(412);
    const reset = await call('PATCH', '/configuration/system-settings', ops, { tenant_defaults: { access_token_ttl: null, session_max_age: null } });
    expect(reset.body).toEqual({ tenant_defaults: {} });
    expect((await call('POST', '/configuration/tenants', ops, { id: 'eta' })).body).toMatchObject({ access_token_ttl: 300 });
  });
});
