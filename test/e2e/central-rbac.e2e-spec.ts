import { adminCall, adminClients, adminToken, type AdminAnswer } from '../support/admin.js';
import { ALICE_PASSWORD, extraTenant, REDIRECT, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';
import type { RelyingParty } from '../support/rp.js';

const ROOT_PASSWORD = 'the first admin of acme, long enough';

/**
 * acme: the admin clients, a public first-party console (`spa`) registered for the admin
 * scopes, alice (no role) and root, to whom the file gives the role `admin` (central:read);
 * beta: another tenant with its own admin clients.
 */
const BOOTSTRAP = `
tenants:
  - id: acme
    clients:${adminClients()}
      - client_id: spa
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid central:read central:write"
        token_endpoint_auth_method: none
        first_party: true
    permissions:
      - id: central:read
        resource: central
        description: Read the configuration
      - id: central:write
        resource: central
    roles:
      - id: admin
        name: Administrators
        permissions: [central:read]
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
      - username: root
        password: "${ROOT_PASSWORD}"
        roles: [admin]${extraTenant('beta', {}, adminClients())}`;

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd((s) => ({ server, rp } = s), BOOTSTRAP);

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, bearer?: string): Promise<AdminAnswer> {
  return adminCall(server, contract, method, path, bearer ?? (await adminToken(server, path.split('/')[1])), body, headers);
}

async function userId(username: string): Promise<string> {
  const res = await call('GET', `/acme/configuration/users?username=${username}&limit=1`);
  return res.body.items[0].id;
}

const INVOICES = { id: 'invoices', identifier: 'https://api.example.com/invoices', name: 'Invoices', scopes: ['invoices:read'], upstream_url: 'http://127.0.0.1:7000' };

describe('admin API: resources', () => {
  it('creates a resource (201, Location, ETag), reads it, lists it by identifier, and refuses a taken id or identifier (409)', async () => {
    const created = await call('POST', '/acme/configuration/resources', INVOICES);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${server.issuer('acme')}/configuration/resources/invoices`);
    expect(created.headers.get('etag')).toBe('"0"');
    expect(created.body).toEqual({ ...INVOICES, created_at: expect.any(String), updated_at: expect.any(String) });
    const read = await call('GET', '/acme/configuration/resources/invoices');
    expect(read.body).toEqual(created.body);
    expect(read.headers.get('etag')).toBe('"0"');
    const found = await call('GET', `/acme/configuration/resources?identifier=${encodeURIComponent(INVOICES.identifier)}`);
    expect(found.body.items.map((r: { id: string }) => r.id)).toEqual(['invoices']);
    expect((await call('GET', '/acme/configuration/resources?identifier=https%3A%2F%2Fnone.example.com')).body.items).toEqual([]);
    expect((await call('POST', '/acme/configuration/resources', { ...INVOICES, identifier: 'https://api.example.com/other' })).status).toBe(409);
    // The refused request claimed nothing: the identifier it named is free for another resource.
    expect((await call('POST', '/acme/configuration/resources', { id: 'other', identifier: 'https://api.example.com/other' })).status).toBe(201);
    expect((await call('POST', '/acme/configuration/resources', { ...INVOICES, id: 'invoices-2' })).status).toBe(409);
  });

  it('refuses bad input with field paths (400) and unknown ids (404)', async () => {
    const bad = await call('POST', '/acme/configuration/resources', { id: 'has space', identifier: 'https://x.example.com', scopes: 'one', audience: 'x' });
    expect(bad.status).toBe(400);
    expect([...new Set(bad.body.errors.map((e: { path: string }) => e.path))].sort()).toEqual(['audience', 'id', 'scopes']);
    expect((await call('POST', '/acme/configuration/resources', { id: 'rel', identifier: '/relative' })).status).toBe(400);
    expect((await call('POST', '/acme/configuration/resources', { id: 'central', identifier: 'https://central.example.com' })).status).toBe(400);
    expect((await call('POST', '/acme/configuration/resources', { id: 'up', identifier: 'https://up.example.com', upstream_url: 'ftp://x' })).status).toBe(400);
    expect((await call('GET', '/acme/configuration/resources?colour=red')).status).toBe(400);
    expect((await call('GET', '/acme/configuration/resources/nothing')).status).toBe(404);
    expect((await call('PATCH', '/acme/configuration/resources/nothing', { name: 'x' })).status).toBe(404);
    expect((await call('DELETE', '/acme/configuration/resources/nothing')).status).toBe(404);
  });

  it('merge-patches a resource with If-Match (412 when stale); id and identifier cannot change', async () => {
    const created = await call('POST', '/acme/configuration/resources', { id: 'reports', identifier: 'https://api.example.com/reports', scopes: ['reports:read'] });
    const etag = created.headers.get('etag')!;
    const patched = await call('PATCH', '/acme/configuration/resources/reports', { name: 'Reports', scopes: ['reports:read', 'reports:write'] }, { 'if-match': etag });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Reports', scopes: ['reports:read', 'reports:write'] });
    expect(patched.headers.get('etag')).toBe('"1"');
    expect((await call('PATCH', '/acme/configuration/resources/reports', { name: 'Stale' }, { 'if-match': etag })).status).toBe(412);
    expect((await call('DELETE', '/acme/configuration/resources/reports', undefined, { 'if-match': etag })).status).toBe(412);
    const moved = await call('PATCH', '/acme/configuration/resources/reports', { identifier: 'https://api.example.com/moved' });
    expect(moved.status).toBe(400);
    expect(moved.body.errors).toEqual([{ path: 'identifier', detail: 'cannot change' }]);
    expect((await call('PATCH', '/acme/configuration/resources/reports', { name: null })).body.name).toBeUndefined();
  });

  it('keeps the edge proxy routes, identity header and token forwarding of a resource, and refuses bad ones with their paths (400)', async () => {
    const routes = [
      { methods: ['GET'], path: '/health', permissions: [], public: true },
      { methods: ['GET', 'POST'], path: '/invoices/*/lines/**', permissions: ['invoices:read'] },
    ];
    const created = await call('POST', '/acme/configuration/resources', { id: 'routed', identifier: 'https://api.example.com/routed', upstream_url: 'http://127.0.0.1:7001', routes, identity_header: 'x-caller', forward_token: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ routes, identity_header: 'x-caller', forward_token: true });
    const patched = await call('PATCH', '/acme/configuration/resources/routed', { routes: [{ methods: ['*'], path: '/**' }], identity_header: null }, { 'if-match': '"0"' });
    expect(patched.status).toBe(200);
    expect(patched.body.routes).toEqual([{ methods: ['*'], path: '/**', permissions: [] }]);
    expect(patched.body.identity_header).toBeUndefined();
    const bad = await call('POST', '/acme/configuration/resources', { id: 'bad-routes', identifier: 'https://api.example.com/bad', routes: [{ methods: ['get'], path: '/a', permissions: ['no space'], extra: 1 }] });
    expect(bad.status).toBe(400);
    expect([...new Set(bad.body.errors.map((e: { path: string }) => e.path))].sort()).toEqual(['routes[0].extra', 'routes[0].methods', 'routes[0].permissions']);
    for (const body of [{ routes: [{ methods: ['GET'], path: '/a/../b' }] }, { routes: [{ methods: ['GET'], path: '/a', public: true, permissions: ['x'] }] }, { identity_header: 'authorization' }, { upstream_url: 'http://127.0.0.1:1/?q=1' }]) {
      expect((await call('POST', '/acme/configuration/resources', { id: 'bad-routes', identifier: 'https://api.example.com/bad', ...body })).status).toBe(400);
    }
  });

  it('pages resources by id without gaps', async () => {
    for (const id of ['page-a', 'page-b', 'page-c']) await call('POST', '/acme/configuration/resources', { id, identifier: `https://${id}.example.com` });
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await call('GET', `/acme/configuration/resources?limit=2${after ? `&after=${after}` : ''}`);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((r: { id: string }) => r.id));
      after = page.body.next;
    } while (after);
    expect(seen).toEqual([...seen].sort());
    expect(seen).toEqual(expect.arrayContaining(['page-a', 'page-b', 'page-c']));
  });
});

describe('admin API: permissions and roles', () => {
  it('creates permissions on existing resources or on central (only the admin scopes there), and lists them by resource', async () => {
    await call('POST', '/acme/configuration/resources', { id: 'billing', identifier: 'https://api.example.com/billing' });
    const created = await call('POST', '/acme/configuration/permissions', { id: 'invoices:approve', resource: 'billing', description: 'Approve invoices' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${server.issuer('acme')}/configuration/permissions/invoices%3Aapprove`);
    expect(created.body).toEqual({ id: 'invoices:approve', resource: 'billing', description: 'Approve invoices', created_at: expect.any(String), updated_at: expect.any(String) });
    expect((await call('POST', '/acme/configuration/permissions', { id: 'invoices:approve', resource: 'billing' })).status).toBe(409);
    expect((await call('POST', '/acme/configuration/permissions', { id: 'x:y', resource: 'nothing' })).status).toBe(400);
    expect((await call('POST', '/acme/configuration/permissions', { id: 'central:everything', resource: 'central' })).status).toBe(400);
    expect((await call('POST', '/acme/configuration/permissions', { id: 'central:audit', resource: 'billing' })).status).toBe(400);
    expect((await call('POST', '/acme/configuration/permissions', { id: 'central:audit', resource: 'central' })).status).toBe(201);
    const central = await call('GET', '/acme/configuration/permissions?resource=central');
    expect(central.body.items.map((p: { id: string }) => p.id)).toEqual(['central:audit', 'central:read', 'central:write']);
    const patched = await call('PATCH', '/acme/configuration/permissions/invoices:approve', { description: 'Approve' }, { 'if-match': created.headers.get('etag')! });
    expect(patched.body.description).toBe('Approve');
    expect((await call('PATCH', '/acme/configuration/permissions/invoices:approve', { resource: 'central' })).body.errors).toEqual([{ path: 'resource', detail: 'cannot change' }]);
  });

  it('keeps what is referred to: a resource with permissions, a permission in a role, a role users hold (409)', async () => {
    await call('POST', '/acme/configuration/resources', { id: 'ledger', identifier: 'https://api.example.com/ledger' });
    await call('POST', '/acme/configuration/permissions', { id: 'ledger:post', resource: 'ledger' });
    expect((await call('POST', '/acme/configuration/roles', { id: 'clerk', permissions: ['ledger:post', 'ledger:nothing'] })).status).toBe(400);
    const role = await call('POST', '/acme/configuration/roles', { id: 'clerk', name: 'Clerks', permissions: ['ledger:post'] });
    expect(role.status).toBe(201);
    expect(role.body).toEqual({ id: 'clerk', name: 'Clerks', permissions: ['ledger:post'], created_at: expect.any(String), updated_at: expect.any(String) });
    const alice = await userId('alice');
    expect((await call('PUT', `/acme/configuration/users/${alice}/roles/clerk`)).status).toBe(200);

    expect((await call('DELETE', '/acme/configuration/resources/ledger')).status).toBe(409);
    expect((await call('DELETE', '/acme/configuration/permissions/ledger:post')).status).toBe(409);
    expect((await call('DELETE', '/acme/configuration/roles/clerk')).status).toBe(409);

    expect((await call('DELETE', `/acme/configuration/users/${alice}/roles/clerk`)).status).toBe(204);
    expect((await call('DELETE', '/acme/configuration/roles/clerk')).status).toBe(204);
    expect((await call('DELETE', '/acme/configuration/permissions/ledger:post')).status).toBe(204);
    expect((await call('DELETE', '/acme/configuration/resources/ledger')).status).toBe(204);
    expect((await call('GET', '/acme/configuration/resources/ledger')).status).toBe(404);
    // The identifier stays with the deleted resource.
    expect((await call('POST', '/acme/configuration/resources', { id: 'ledger-2', identifier: 'https://api.example.com/ledger' })).status).toBe(409);
  });

  it('merge-patches a role (permissions replaced whole) with If-Match, and lists roles', async () => {
    await call('POST', '/acme/configuration/permissions', { id: 'central:write', resource: 'central' });
    const role = await call('POST', '/acme/configuration/roles', { id: 'viewer', permissions: ['central:read'] });
    const etag = role.headers.get('etag')!;
    const patched = await call('PATCH', '/acme/configuration/roles/viewer', { permissions: ['central:read', 'central:write'] }, { 'if-match': etag });
    expect(patched.status).toBe(200);
    expect(patched.body.permissions).toEqual(['central:read', 'central:write']);
    expect((await call('PATCH', '/acme/configuration/roles/viewer', { name: 'Stale' }, { 'if-match': etag })).status).toBe(412);
    expect((await call('PATCH', '/acme/configuration/roles/viewer', { permissions: ['nothing'] })).status).toBe(400);
    expect((await call('PATCH', '/acme/configuration/roles/viewer', { id: 'other' })).body.errors).toEqual([{ path: 'id', detail: 'cannot change' }]);
    const list = await call('GET', '/acme/configuration/roles');
    expect(list.body.items.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining(['admin', 'viewer']));
    expect((await call('GET', '/acme/configuration/roles/nothing')).status).toBe(404);
  });
});

describe('admin API: role assignment', () => {
  it('gives a user a role (PUT, idempotent, with If-Match on the user) and takes it away (DELETE); the user shows their roles', async () => {
    const alice = await userId('alice');
    const before = await call('GET', `/acme/configuration/users/${alice}`);
    expect(before.body.roles).toEqual([]);
    const put = await call('PUT', `/acme/configuration/users/${alice}/roles/admin`, undefined, { 'if-match': before.headers.get('etag')! });
    expect(put.status).toBe(200);
    expect(put.body.roles).toEqual(['admin']);
    expect(put.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect((await call('PUT', `/acme/configuration/users/${alice}/roles/admin`, undefined, { 'if-match': before.headers.get('etag')! })).status).toBe(412);
    const again = await call('PUT', `/acme/configuration/users/${alice}/roles/admin`);
    expect(again.headers.get('etag')).toBe(put.headers.get('etag'));
    expect((await call('GET', `/acme/configuration/users/${alice}`)).body.roles).toEqual(['admin']);
    expect((await call('PATCH', `/acme/configuration/users/${alice}`, { roles: [] })).body.errors).toEqual([{ path: 'roles', detail: 'unknown field' }]);
    expect((await call('PUT', `/acme/configuration/users/${alice}/roles/nothing`)).status).toBe(404);
    expect((await call('PUT', '/acme/configuration/users/nobody/roles/admin')).status).toBe(404);
    expect((await call('DELETE', `/acme/configuration/users/${alice}/roles/admin`)).status).toBe(204);
    expect((await call('DELETE', `/acme/configuration/users/${alice}/roles/admin`)).status).toBe(404);
    expect((await call('GET', `/acme/configuration/users/${alice}`)).body.roles).toEqual([]);
  });

  it('gives a client a role for its own tokens; a role a client holds is not deleted, and a deleted client gives its roles back', async () => {
    expect((await call('POST', '/acme/configuration/roles', { id: 'robots', permissions: ['central:read'] })).status).toBe(201);
    expect((await call('POST', '/acme/configuration/clients', { client_id: 'robot', grant_types: ['client_credentials'] })).status).toBe(201);
    const before = await call('GET', '/acme/configuration/clients/robot');
    expect(before.body.roles).toEqual([]);
    const put = await call('PUT', '/acme/configuration/clients/robot/roles/robots', undefined, { 'if-match': before.headers.get('etag')! });
    expect(put.status).toBe(200);
    expect(put.body.roles).toEqual(['robots']);
    expect((await call('PUT', '/acme/configuration/clients/robot/roles/robots')).headers.get('etag')).toBe(put.headers.get('etag'));
    expect((await call('PATCH', '/acme/configuration/clients/robot', { roles: [] })).body.errors).toEqual([{ path: 'roles', detail: 'unknown field' }]);
    expect((await call('PUT', '/acme/configuration/clients/robot/roles/nothing')).status).toBe(404);
    expect((await call('PUT', '/acme/configuration/clients/nobody/roles/robots')).status).toBe(404);
    expect((await call('DELETE', '/acme/configuration/roles/robots')).status).toBe(409);
    expect((await call('DELETE', '/acme/configuration/clients/robot/roles/admin')).status).toBe(404);
    expect((await call('DELETE', '/acme/configuration/clients/robot')).status).toBe(204);
    expect((await call('DELETE', '/acme/configuration/roles/robots')).status).toBe(204);
  });

  it("keeps tenants apart: another tenant's token gets 403 and no data; a reader cannot write", async () => {
    const beta = await adminToken(server, 'beta');
    for (const path of ['/acme/configuration/resources', '/acme/configuration/permissions', '/acme/configuration/roles/admin']) {
      const res = await call('GET', path, undefined, {}, beta);
      expect(res.status).toBe(403);
      expect(res.body.items).toBeUndefined();
    }
    expect((await call('PUT', `/acme/configuration/users/${await userId('alice')}/roles/admin`, undefined, {}, beta)).status).toBe(403);
    expect((await call('GET', '/beta/configuration/roles/admin', undefined, {}, beta)).status).toBe(404);
    const reader = await adminToken(server, 'acme', 'central:read', 'reader');
    expect((await call('POST', '/acme/configuration/roles', { id: 'sneaky' }, {}, reader)).status).toBe(403);
  });
});

describe('the admin scopes through roles', () => {
  it('the first admin, given the role by the bootstrap file, signs in through the code flow asking central:read and calls the admin API', async () => {
    const root = await userId('root');
    expect((await call('GET', `/acme/configuration/users/${root}`)).body.roles).toEqual(['admin']);
    const tokens = await rp.tokens({ clientId: 'spa', scope: 'openid central:read central:write', username: 'root', password: ROOT_PASSWORD });
    // The role holds central:read only: central:write is left out (RFC 6749 §3.3).
    expect(tokens.scope).toBe('openid central:read');
    const listed = await call('GET', '/acme/configuration/roles', undefined, {}, tokens.access_token);
    expect(listed.status).toBe(200);
    expect((await call('POST', '/acme/configuration/roles', { id: 'by-root' }, {}, tokens.access_token)).status).toBe(403);
  });

  it('a user without the role asks for central:read and does not get it', async () => {
    const tokens = await rp.tokens({ clientId: 'spa', scope: 'openid central:read', username: 'alice', password: ALICE_PASSWORD });
    expect(tokens.scope).toBe('openid');
    expect((await call('GET', '/acme/configuration/roles', undefined, {}, tokens.access_token)).status).toBe(403);
    const only = await rp.signIn(rp.browser(), { clientId: 'spa', scope: 'central:read', username: 'alice', password: ALICE_PASSWORD });
    expect(only.callback?.searchParams.get('error')).toBe('invalid_scope');
  });

  it('a role taken away stops granting: new sign-ins lack the scope, and a token issued before is refused at the next admin call', async () => {
    const alice = await userId('alice');
    await call('PUT', `/acme/configuration/users/${alice}/roles/admin`);
    const tokens = await rp.tokens({ clientId: 'spa', scope: 'openid central:read', username: 'alice', password: ALICE_PASSWORD });
    expect(tokens.scope).toBe('openid central:read');
    expect((await call('GET', '/acme/configuration/permissions', undefined, {}, tokens.access_token)).status).toBe(200);
    await call('DELETE', `/acme/configuration/users/${alice}/roles/admin`);
    expect((await call('GET', '/acme/configuration/permissions', undefined, {}, tokens.access_token)).status).toBe(403);
    expect((await rp.tokens({ clientId: 'spa', scope: 'openid central:read', username: 'alice', password: ALICE_PASSWORD })).scope).toBe('openid');
  });
});
