import { adminCall, adminClients, adminToken, type AdminAnswer } from '../support/admin.js';
import { ALICE_PASSWORD, extraTenant, REDIRECT, type TestServer, WEB_SECRET } from '../support/server.js';
import { endToEnd } from '../support/suite.js';
import type { RelyingParty } from '../support/rp.js';

/**
 * acme: the admin clients, a client `web` registered for the built-in scopes and two of the
 * tenant's own (`contact`, `billing:approve`), alice (no role) and carol (role `approvers`,
 * whose permission `billing:approve` is on the resource `billing`); beta: another tenant.
 */
const BOOTSTRAP = `
tenants:
  - id: acme
    clients:${adminClients()}
      - client_id: web
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid profile email contact billing:approve"
        first_party: true
    resources:
      - id: billing
        identifier: https://api.example.com/billing
        scopes: [billing:approve]
    permissions:
      - id: billing:approve
        resource: billing
    roles:
      - id: approvers
        permissions: [billing:approve]
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
        email: alice@example.com
        email_verified: true
        name: Alice Liddell
        given_name: Alice
        family_name: Liddell
      - username: carol
        password: "${ALICE_PASSWORD}"
        roles: [approvers]${extraTenant('beta', {}, adminClients())}`;

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd((s) => ({ server, rp } = s), BOOTSTRAP);

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<AdminAnswer> {
  return adminCall(server, contract, method, path, await adminToken(server, path.split('/')[1]), body, headers);
}

async function userinfo(accessToken: string): Promise<Record<string, unknown>> {
  const res = await contract.fetch(`${server.issuer('acme')}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe('admin API: scopes', () => {
  it('lists the built-in scopes of every tenant, with what they release (ETag "0": no change yet)', async () => {
    const list = await call('GET', '/beta/configuration/scopes');
    expect(list.body.items.map((s: { id: string }) => s.id)).toEqual(['email', 'offline_access', 'openid', 'profile']);
    const profile = await call('GET', '/beta/configuration/scopes/profile');
    expect(profile.headers.get('etag')).toBe('"0"');
    expect(profile.body).toMatchObject({ id: 'profile', restricted: false, built_in: true, claims: ['name', 'given_name', 'family_name', 'updated_at'] });
  });

  it("releases at userinfo what the tenant's scopes say, from the very next request after a change", async () => {
    const created = await call('POST', '/acme/configuration/scopes', { id: 'contact', description: 'How to reach the user', claims: ['email', 'preferred_username'] });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${server.issuer('acme')}/configuration/scopes/contact`);
    expect(created.body).toMatchObject({ id: 'contact', restricted: false, built_in: false, claims: ['email', 'preferred_username'] });

    const contact = await rp.tokens({ clientId: 'web', scope: 'openid contact' });
    expect(await userinfo(contact.access_token)).toEqual({ sub: expect.any(String), email: 'alice@example.com', preferred_username: 'alice' });

    const before = await rp.tokens({ clientId: 'web', scope: 'openid profile' });
    expect(await userinfo(before.access_token)).toMatchObject({ family_name: 'Liddell' });
    const patched = await call('PATCH', '/acme/configuration/scopes/profile', { claims: ['name'] }, { 'content-type': 'application/merge-patch+json', 'if-match': '"0"' });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe('"1"');
    expect(patched.body).toMatchObject({ id: 'profile', built_in: true, claims: ['name'] });
    // The same token, the next request: the claims the scope releases now.
    expect(await userinfo(before.access_token)).toEqual({ sub: expect.any(String), name: 'Alice Liddell' });
    // Another tenant's profile is its own.
    expect((await call('GET', '/beta/configuration/scopes/profile')).body.claims).toEqual(['name', 'given_name', 'family_name', 'updated_at']);
  });

  it("gives a restricted scope to a user's grant only through a role that includes a permission of its name", async () => {
    expect((await call('POST', '/acme/configuration/scopes', { id: 'billing:approve', restricted: true })).status).toBe(201);
    const alice = await rp.tokens({ clientId: 'web', scope: 'openid billing:approve' });
    expect(alice.scope).toBe('openid');
    const carol = await rp.tokens({ clientId: 'web', scope: 'openid billing:approve', username: 'carol', password: ALICE_PASSWORD });
    expect(carol.scope).toBe('openid billing:approve');
    // No longer restricted: anyone's grant may carry it.
    expect((await call('PATCH', '/acme/configuration/scopes/billing:approve', { restricted: false }, { 'content-type': 'application/merge-patch+json' })).status).toBe(200);
    expect((await rp.tokens({ clientId: 'web', scope: 'openid billing:approve' })).scope).toBe('openid billing:approve');
  });

  it('refuses what would break the protocol or the rules, with field paths, and stale ETags (412)', async () => {
    const bad = await call('POST', '/acme/configuration/scopes', { id: 'has space', claims: ['password_hash'], restricted: 'yes' });
    expect(bad.status).toBe(400);
    expect([...new Set(bad.body.errors.map((e: { path: string }) => e.path))].sort()).toEqual(['claims', 'id', 'restricted']);
    expect((await call('POST', '/acme/configuration/scopes', { id: 'profile' })).status).toBe(409);
    expect((await call('POST', '/acme/configuration/scopes', { id: 'central:read' })).status).toBe(400);
    expect((await call('PATCH', '/acme/configuration/scopes/openid', { claims: ['sub', 'email'] }, { 'content-type': 'application/merge-patch+json' })).status).toBe(400);
    expect((await call('PATCH', '/acme/configuration/scopes/openid', { description: 'Sign in' }, { 'content-type': 'application/merge-patch+json' })).status).toBe(200);
    expect((await call('PATCH', '/acme/configuration/scopes/email', { built_in: false }, { 'content-type': 'application/merge-patch+json' })).status).toBe(400);
    expect((await call('DELETE', '/acme/configuration/scopes/email')).status).toBe(400);
    expect((await call('GET', '/acme/configuration/scopes/nothing')).status).toBe(404);

    expect((await call('POST', '/acme/configuration/scopes', { id: 'reports' })).status).toBe(201);
    const first = await call('PATCH', '/acme/configuration/scopes/reports', { description: 'one' }, { 'content-type': 'application/merge-patch+json', 'if-match': '"1"' });
    expect(first.status).toBe(200);
    const second = await call('PATCH', '/acme/configuration/scopes/reports', { description: 'two' }, { 'content-type': 'application/merge-patch+json', 'if-match': '"1"' });
    expect(second.status).toBe(412);
    expect((await call('DELETE', '/acme/configuration/scopes/reports', undefined, { 'if-match': '"2"' })).status).toBe(204);
    expect((await call('GET', '/acme/configuration/scopes/reports')).status).toBe(404);
    // A scope is a name: deleted, it may be defined again.
    expect((await call('POST', '/acme/configuration/scopes', { id: 'reports', claims: ['name'] })).status).toBe(201);
  });
});
