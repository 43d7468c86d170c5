import { ADMIN_BOOTSTRAP, adminCall, adminToken } from '../support/admin.js';
import { endToEnd } from '../support/suite.js';
import type { TestServer } from '../support/server.js';

const PASSWORD = 'a long enough password for a new user';
const WINDOW_MS = 900_000;

/** ADMIN_BOOTSTRAP (acme and beta with admin clients, sign-up off) and `open`, where anyone may sign up. */
const BOOTSTRAP = `${ADMIN_BOOTSTRAP}
  - id: open
    registration_enabled: true`;

let server: TestServer;
const contract = endToEnd((s) => ({ server } = s), BOOTSTRAP);

/** POST {issuer}/users/registrations, anonymous unless `bearer` is given. */
async function register(tenant: string, body: unknown, bearer?: string): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await contract.fetch(`${server.issuer(tenant)}/users/registrations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

describe('{issuer}/users/registrations', () => {
  it('is off by default: anonymous sign-up gets 403; an admin token with central:write creates the user (201)', async () => {
    const refused = await register('acme', { username: 'mallory', password: PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const settings = await adminCall(server, contract, 'GET', '/acme/configuration/settings', await adminToken(server, 'acme'));
    expect(settings.body.registration_enabled).toBe(false);

    const reader = await register('acme', { username: 'mallory', password: PASSWORD }, await adminToken(server, 'acme', 'central:read'));
    expect(reader.status).toBe(403);
    const admin = await register('acme', { username: 'Grace', password: PASSWORD, email: 'grace@example.com', email_verified: true }, await adminToken(server, 'acme'));
    expect(admin.status).toBe(201);
    expect(admin.body).toEqual({ id: expect.any(String), username: 'Grace', email: 'grace@example.com', email_verified: true, disabled: false, roles: [], created_at: expect.any(String), updated_at: expect.any(String) });
    expect(admin.headers.get('location')).toBe(`${server.issuer('acme')}/configuration/users/${admin.body.id}`);
    expect(JSON.stringify(admin.body)).not.toMatch(/password|scrypt/);
    expect((await register('acme', { username: 'x' }, 'not-a-token')).status).toBe(401);
  });

  it('once enabled, lets anyone sign up (201) under the password policy (400 with the field), refuses admin-only fields and taken usernames (409)', async () => {
    const created = await register('open', { username: 'Heidi', password: PASSWORD, email: 'heidi@example.com', name: 'Heidi H' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), username: 'Heidi', email: 'heidi@example.com', name: 'Heidi H', disabled: false, roles: [], created_at: expect.any(String), updated_at: expect.any(String) });
    expect(created.headers.get('location')).toBeNull();
    expect(JSON.stringify(created.body)).not.toMatch(/password|scrypt/);
    const audit = await adminCall(server, contract, 'GET', '/open/configuration/audit/events?actor=anonymous', await adminToken(server, 'ops'));
    expect(audit.body.items.map((e: { type: string; metadata: { sourceIp?: string } }) => [e.type, e.metadata.sourceIp])).toEqual([
      ['UsernameReserved', '127.0.0.1'],
      ['UserCreated', '127.0.0.1'],
    ]);

    const weak = await register('open', { username: 'ivan', password: 'password1' });
    expect(weak.status).toBe(400);
    expect(weak.body.errors).toEqual([{ path: 'password', detail: expect.stringMatching(/too common/) }]);
    const bad = await register('open', { username: 'ivan', password: PASSWORD, email_verified: true, disabled: false, role: 'admin' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['role']);
    const vouched = await register('open', { username: 'ivan', password: PASSWORD, email_verified: true });
    expect(vouched.body.errors).toEqual([{ path: 'email_verified', detail: 'only an admin sets it' }]);
    expect((await register('open', { username: 'ivan' })).body.errors).toEqual([{ path: 'password', detail: 'required' }]);
    expect((await register('open', '[1]')).status).toBe(400);

    expect((await register('open', { username: 'HEIDI', password: PASSWORD })).status).toBe(409);
    expect((await register('nowhere', { username: 'judy', password: PASSWORD })).status).toBe(404);
  });

  it('throttles sign-ups per address: 5 well-formed attempts a window, then 429 with Retry-After until it ends', async () => {
    server.clock.freeze();
    try {
      // Two were spent above (Heidi, and the taken HEIDI).
      for (const name of ['kate', 'leo', 'mia']) expect((await register('open', { username: name, password: PASSWORD })).status).toBe(201);
      const held = await register('open', { username: 'ned', password: PASSWORD });
      expect(held.status).toBe(429);
      const retryAfter = Number(held.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
      server.clock.advance(retryAfter * 1000 - 1000);
      expect((await register('open', { username: 'ned', password: PASSWORD })).status).toBe(429);
      server.clock.advance(1000);
      expect((await register('open', { username: 'ned', password: PASSWORD })).status).toBe(201);
      for (let i = 0; i < 4; i++) await register('open', { username: `filler-${i}`, password: PASSWORD });
      expect((await register('open', { username: 'olga', password: PASSWORD })).status).toBe(429);
      // An admin (here the operator tenant's) is not throttled.
      expect((await register('open', { username: 'olga', password: PASSWORD }, await adminToken(server, 'ops'))).status).toBe(201);
    } finally {
      server.clock.release();
    }
  });

  it('follows the tenant setting, changed through the settings PATCH', async () => {
    const bearer = await adminToken(server, 'beta');
    expect((await register('beta', { username: 'pat', password: PASSWORD })).status).toBe(403);
    const on = await adminCall(server, contract, 'PATCH', '/beta/configuration/settings', bearer, { registration_enabled: true });
    expect(on.status).toBe(200);
    expect(on.body.registration_enabled).toBe(true);
    expect((await register('beta', { username: 'pat', password: PASSWORD })).status).toBe(201);
    await adminCall(server, contract, 'PATCH', '/beta/configuration/settings', bearer, { registration_enabled: false });
    expect((await register('beta', { username: 'quinn', password: PASSWORD })).status).toBe(403);
  });
});
