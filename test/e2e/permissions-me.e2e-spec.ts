import { createHash } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { ADMIN_SECRET, adminCall, adminClients, adminToken } from '../support/admin.js';
import { ALICE_PASSWORD, REDIRECT, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';
import type { RelyingParty } from '../support/rp.js';

/** acme: a web client, the admin clients, resources invoices and orders, roles clerk and approver; alice is a clerk, bob holds nothing. */
const BOOTSTRAP = `
tenants:
  - id: acme
    clients:${adminClients()}
      - client_id: web
        client_secret: "web-secret-0123456789-0123456789-abcdef"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid"
        token_endpoint_auth_method: client_secret_basic
        first_party: true
    resources:
      - { id: invoices, identifier: "https://api.example.com/invoices" }
      - { id: orders, identifier: "https://api.example.com/orders" }
    permissions:
      - { id: "invoices:read", resource: invoices }
      - { id: "invoices:approve", resource: invoices }
      - { id: "orders:read", resource: orders }
    roles:
      - { id: clerk, permissions: ["invoices:read", "orders:read"] }
      - { id: approver, permissions: ["invoices:read", "invoices:approve"] }
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
        roles: [clerk]
      - username: bob
        password: "bob's long password"`;

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd((s) => ({ server, rp } = s), BOOTSTRAP);

async function me(headers: Record<string, string>, query = ''): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await contract.fetch(`${server.issuer('acme')}/permissions/me${query}`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function aliceId(admin: string): Promise<string> {
  return (await adminCall(server, contract, 'GET', '/acme/configuration/users?username=alice&limit=1', admin)).body.items[0].id;
}

describe('/permissions/me', () => {
  it("answers a user's roles and permissions, all or for one resource", async () => {
    const { access_token } = await rp.tokens({ username: 'alice', password: ALICE_PASSWORD, scope: 'openid' });
    const all = await me(bearer(access_token));
    expect(all.status).toBe(200);
    expect(all.headers.get('cache-control')).toBe('no-store');
    expect(all.body).toEqual({
      sub: expect.any(String),
      client_id: 'web',
      roles: ['clerk'],
      permissions: [
        { id: 'invoices:read', resource: 'invoices', roles: ['clerk'] },
        { id: 'orders:read', resource: 'orders', roles: ['clerk'] },
      ],
    });
    expect((await me(bearer(access_token), '?resource=invoices')).body).toMatchObject({ resource: 'invoices', roles: ['clerk'], permissions: [{ id: 'invoices:read', resource: 'invoices', roles: ['clerk'] }] });
    expect((await me(bearer(access_token), '?resource=nothing')).body).toMatchObject({ roles: [], permissions: [] });
    expect((await me(bearer(access_token), '?resource=has%20space')).status).toBe(400);
    expect((await me(bearer(access_token), '?other=1')).status).toBe(400);
  });

  it('shows a role given or taken away through the admin API on the very next request', async () => {
    const admin = await adminToken(server, 'acme');
    const alice = await aliceId(admin);
    const { access_token } = await rp.tokens({ username: 'alice', password: ALICE_PASSWORD, scope: 'openid' });
    expect((await adminCall(server, contract, 'PUT', `/acme/configuration/users/${alice}/roles/approver`, admin)).status).toBeLessThan(300);
    const given = await me(bearer(access_token), '?resource=invoices');
    expect(given.body.roles).toEqual(['approver', 'clerk']);
    expect(given.body.permissions).toEqual([
      { id: 'invoices:approve', resource: 'invoices', roles: ['approver'] },
      { id: 'invoices:read', resource: 'invoices', roles: ['approver', 'clerk'] },
    ]);
    expect((await adminCall(server, contract, 'DELETE', `/acme/configuration/users/${alice}/roles/approver`, admin)).status).toBeLessThan(300);
    expect((await me(bearer(access_token), '?resource=invoices')).body.permissions).toEqual([{ id: 'invoices:read', resource: 'invoices', roles: ['clerk'] }]);
    // A role's permissions changed count at once too.
    const role = await adminCall(server, contract, 'GET', '/acme/configuration/roles/clerk', admin);
    expect((await adminCall(server, contract, 'PATCH', '/acme/configuration/roles/clerk', admin, { permissions: ['orders:read'] }, { 'if-match': role.headers.get('etag')! })).status).toBe(200);
    expect((await me(bearer(access_token), '?resource=invoices')).body).toMatchObject({ roles: [], permissions: [] });
    await adminCall(server, contract, 'PATCH', '/acme/configuration/roles/clerk', admin, { permissions: ['invoices:read', 'orders:read'] });
  });

  it('refuses no token, a bad or a revoked token (401 with the Bearer challenge) and a token in the query (400)', async () => {
    const none = await me({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const bad = await me(bearer('not-a-token'));
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    const { access_token } = await rp.tokens({ username: 'bob', password: "bob's long password", scope: 'openid' });
    expect((await me(bearer(access_token))).body).toMatchObject({ roles: [], permissions: [] });
    expect((await me(bearer(access_token), `?access_token=${access_token}`)).status).toBe(400);
    expect((await me({ authorization: 'Bearer  a b' })).status).toBe(400);
    await rp.revoke(access_token);
    const revoked = await me(bearer(access_token));
    expect(revoked.status).toBe(401);
    expect(revoked.body.error).toBe('invalid_token');
  });

  it("answers a client's own token with the client's roles, from the next request after a change", async () => {
    const admin = await adminToken(server, 'acme');
    expect((await me(bearer(admin))).body).toEqual({ sub: 'admin', client_id: 'admin', roles: [], permissions: [] });
    const given = await adminCall(server, contract, 'PUT', '/acme/configuration/clients/admin/roles/approver', admin);
    expect(given.status).toBe(200);
    expect((await me(bearer(admin), '?resource=invoices')).body).toMatchObject({
      client_id: 'admin',
      roles: ['approver'],
      permissions: [expect.objectContaining({ id: 'invoices:approve' }), expect.objectContaining({ id: 'invoices:read' })],
    });
    expect((await adminCall(server, contract, 'DELETE', '/acme/configuration/clients/admin/roles/approver', admin)).status).toBe(204);
    expect((await me(bearer(admin))).body).toMatchObject({ roles: [], permissions: [] });
  });

  it('takes a DPoP-bound token with the DPoP scheme and a proof of its key, and refuses it as Bearer (RFC 9449 §7)', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(keys.publicKey);
    const proof = (htm: string, htu: string, claims: Record<string, unknown> = {}) =>
      new SignJWT({ htm, htu, iat: Math.floor(server.clock.now().getTime() / 1000), jti: crypto.randomUUID(), ...claims }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk }).sign(keys.privateKey);
    const issued = await contract.fetch(`${server.issuer('acme')}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`admin:${ADMIN_SECRET}`).toString('base64')}`, dpop: await proof('POST', `${server.issuer('acme')}/token`) },
      body: 'grant_type=client_credentials',
    });
    const { access_token: token, token_type: type } = (await issued.json()) as { access_token: string; token_type: string };
    expect(type).toBe('DPoP');
    const url = `${server.issuer('acme')}/permissions/me`;
    const ath = createHash('sha256').update(token).digest('base64url');
    const bound = await me({ authorization: `DPoP ${token}`, dpop: await proof('GET', url, { ath }) });
    expect(bound.status).toBe(200);
    expect(bound.body).toMatchObject({ client_id: 'admin' });
    const asBearer = await me({ authorization: `Bearer ${token}`, dpop: await proof('GET', url, { ath }) });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
    const noProof = await me({ authorization: `DPoP ${token}` });
    expect(noProof.status).toBe(401);
    expect(noProof.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_dpop_proof"/);
  });

  it('answers the browser of a signed-in user by its session cookie, and refuses a cookie that opens nothing', async () => {
    const browser = rp.browser();
    await rp.signIn(browser, { username: 'alice', password: ALICE_PASSWORD, scope: 'openid' });
    const cookie = browser.cookies().join('; ');
    const byCookie = await me({ cookie });
    expect(byCookie.status).toBe(200);
    expect(byCookie.body).toMatchObject({ roles: ['clerk'] });
    expect(byCookie.body.client_id).toBeUndefined();
    expect((await me({ cookie: cookie.replace(/=([^;]*)/g, '=x$1') })).status).toBe(401);
  });
});
