import * as oauth from 'oauth4webapi';
import { endToEnd } from '../support/suite.js';
import { BOOTSTRAP_YAML, extraTenant, type TestServer } from '../support/server.js';
import { Browser } from '../support/browser.js';
import { oauthError, type RelyingParty } from '../support/rp.js';

const ADMIN_SECRET = 'admin-secret-0123456789-0123456789-abcdefgh';
const PASSWORD = 'a long enough password for carol';
const adminClients = `
      - client_id: admin
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "central:read central:write"`;

/** acme and beta with an admin client each. */
const BOOTSTRAP = `${BOOTSTRAP_YAML.replace('    clients:\n', `    clients:${adminClients}\n`)}${extraTenant('beta', {}, adminClients)}`;
const BYE = 'http://127.0.0.1:9999/bye';
const WEB_ORIGIN = 'http://127.0.0.1:9999';

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd((s) => ({ server, rp } = s), BOOTSTRAP);

async function token(tenant: string): Promise<string> {
  const res = await fetch(`${server.issuer(tenant)}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`admin:${ADMIN_SECRET}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'central:read central:write' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, tenantToken?: string): Promise<{ status: number; headers: Headers; body: any }> {
  const tenant = path.split('/')[1];
  const res = await contract.fetch(`${server.issuer(tenant)}${path.slice(path.indexOf('/', 1))}`, {
    method,
    headers: {
      authorization: `Bearer ${tenantToken ?? (await token(tenant))}`,
      ...(body !== undefined ? { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function createUser(username: string, extra: Record<string, unknown> = {}): Promise<{ id: string; etag: string }> {
  const res = await call('POST', '/acme/configuration/users', { username, password: PASSWORD, ...extra });
  expect(res.status).toBe(201);
  return { id: res.body.id, etag: res.headers.get('etag')! };
}

async function userinfo(accessToken: string): Promise<number> {
  return (await contract.fetch(`${server.issuer('acme')}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
}

/** What the sign-in form answers to the user's password, in a new browser. */
async function signInStatus(username: string): Promise<number> {
  const s = await rp.signIn(rp.browser(), { username, password: PASSWORD });
  return s.res.status;
}

describe('admin API: users, one by one', () => {
  it('creates a user (201, Location, ETag), shows it without any password, and reads it back', async () => {
    const created = await call('POST', '/acme/configuration/users', { username: 'Carol', password: PASSWORD, email: 'carol@example.com', email_verified: true, name: 'Carol C', given_name: 'Carol' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${server.issuer('acme')}/configuration/users/${created.body.id}`);
    expect(created.headers.get('etag')).toMatch(/^"\d+"$/);
    expect(created.body).toEqual({
      id: expect.any(String),
      username: 'Carol',
      email: 'carol@example.com',
      email_verified: true,
      name: 'Carol C',
      given_name: 'Carol',
      disabled: false,
      roles: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const read = await call('GET', `/acme/configuration/users/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    expect(JSON.stringify(read.body)).not.toMatch(/password|scrypt/);
    expect(await signInStatus('carol')).toBe(302);
  });

  it('refuses a taken username in any case (409), bad input with field paths (400), unknown ids (404)', async () => {
    await createUser('dave');
    expect((await call('POST', '/acme/configuration/users', { username: 'DAVE', password: PASSWORD })).status).toBe(409);
    const weak = await call('POST', '/acme/configuration/users', { username: 'erin', password: 'password1' });
    expect(weak.status).toBe(400);
    expect(weak.body.errors).toEqual([{ path: 'password', detail: expect.stringMatching(/too common/) }]);
    const own = await call('POST', '/acme/configuration/users', { username: 'erin-the-user', password: 'erin-the-user' });
    expect(own.body.errors).toEqual([{ path: 'password', detail: 'must not be the username' }]);
    const bad = await call('POST', '/acme/configuration/users', { username: 'has space', password: PASSWORD, email: 'nope', role: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['email', 'role', 'username']);
    expect((await call('POST', '/acme/configuration/users', { username: 'erin' })).body.errors).toEqual([{ path: 'password', detail: 'required' }]);
    expect((await call('POST', '/acme/configuration/users', '[1]')).status).toBe(400);
    expect((await call('GET', '/acme/configuration/users/nobody')).status).toBe(404);
    expect((await call('PATCH', '/acme/configuration/users/nobody', { name: 'x' })).status).toBe(404);
    expect((await call('DELETE', '/acme/configuration/users/nobody')).status).toBe(404);
  });

  it('merge-patches claims (null removes one) and the password, honours If-Match, and never changes a username', async () => {
    const { id, etag } = await createUser('frank', { email: 'frank@example.com', name: 'Frank' });
    const patched = await call('PATCH', `/acme/configuration/users/${id}`, { name: null, family_name: 'Smith', email_verified: true }, { 'if-match': etag });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ username: 'frank', email: 'frank@example.com', email_verified: true, family_name: 'Smith' });
    expect(patched.body.name).toBeUndefined();
    expect(patched.headers.get('etag')).not.toBe(etag);
    expect((await call('PATCH', `/acme/configuration/users/${id}`, { name: 'Stale' }, { 'if-match': etag })).status).toBe(412);
    expect((await call('DELETE', `/acme/configuration/users/${id}`, undefined, { 'if-match': etag })).status).toBe(412);
    const rename = await call('PATCH', `/acme/configuration/users/${id}`, { username: 'franky' });
    expect(rename.status).toBe(400);
    expect(rename.body.errors).toEqual([{ path: 'username', detail: 'cannot change' }]);
    expect((await call('PATCH', `/acme/configuration/users/${id}`, { password: 'frank' })).body.errors).toEqual([{ path: 'password', detail: expect.stringMatching(/at least/) }]);
    const newPassword = 'another long password for frank';
    expect((await call('PATCH', `/acme/configuration/users/${id}`, { password: newPassword })).status).toBe(200);
    expect((await rp.signIn(rp.browser(), { username: 'frank', password: PASSWORD })).res.status).toBe(400);
    expect((await rp.signIn(rp.browser(), { username: 'frank', password: newPassword })).res.status).toBe(302);
  });

  it('deletes (204); the user is gone, cannot sign in, and the username is never given again', async () => {
    const { id, etag } = await createUser('gina');
    expect((await call('DELETE', `/acme/configuration/users/${id}`, undefined, { 'if-match': etag })).status).toBe(204);
    expect((await call('GET', `/acme/configuration/users/${id}`)).status).toBe(404);
    expect(await signInStatus('gina')).toBe(400);
    expect((await call('POST', '/acme/configuration/users', { username: 'gina', password: PASSWORD })).status).toBe(409);
  });

  it("acts on the token's own tenant only", async () => {
    const { id } = await createUser('hank');
    const beta = await token('beta');
    expect((await call('GET', `/acme/configuration/users/${id}`, undefined, {}, beta)).status).toBe(403);
    expect((await call('GET', `/beta/configuration/users/${id}`, undefined, {}, beta)).status).toBe(404);
  });
});

describe('admin API: the list of users', () => {
  const names = ['list-ann', 'list-ben', 'List-Bob', 'list-cat', 'list-bea'];
  beforeAll(async () => {
    for (const n of names) await call('POST', '/beta/configuration/users', { username: n, password: PASSWORD, email: `${n.toLowerCase()}@example.com` });
  });

  it('pages every user by id with `next`, and only the tenant’s', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await call('GET', `/beta/configuration/users?limit=2${after ? `&after=${encodeURIComponent(after)}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((u: { username: string }) => u.username));
      after = page.body.next;
    } while (after);
    // beta's bootstrap alice and the five above, nobody of acme.
    expect(seen.sort()).toEqual(['List-Bob', 'alice', ...names.filter((n) => n !== 'List-Bob')].sort());
  });

  it('filters by username prefix in any case, in username order and in pages, and by exact e-mail', async () => {
    const first = await call('GET', '/beta/configuration/users?username=LIST-B&limit=2');
    expect(first.body.items.map((u: { username: string }) => u.username)).toEqual(['list-bea', 'list-ben']);
    const second = await call('GET', `/beta/configuration/users?username=list-b&limit=2&after=${encodeURIComponent(first.body.next)}`);
    expect(second.body.items.map((u: { username: string }) => u.username)).toEqual(['List-Bob']);
    expect(second.body.next).toBeUndefined();
    expect((await call('GET', '/beta/configuration/users?username=zz')).body.items).toEqual([]);
    const byEmail = await call('GET', '/beta/configuration/users?email=list-cat@example.com');
    expect(byEmail.body.items.map((u: { username: string }) => u.username)).toEqual(['list-cat']);
    expect((await call('GET', '/beta/configuration/users?email=list-cat@example.com&username=list-a')).body.items).toEqual([]);
  });

  it('refuses bad paging and filters with 400', async () => {
    for (const q of ['limit=0', 'limit=201', 'limit=x', 'role=admin', 'username=a&username=b', `email=${'x'.repeat(400)}`]) {
      const res = await call('GET', `/beta/configuration/users?${q}`);
      expect(res.status).toBe(400);
    }
  });
});

describe('admin API: a disabled or deleted user', () => {
  it('cannot sign in; their tokens introspect inactive, userinfo answers 401, refresh is refused; re-enabling brings none back', async () => {
    const { id } = await createUser('ivan', { email: 'ivan@example.com' });
    const tokens = await rp.tokens({ username: 'ivan', password: PASSWORD });
    expect(await rp.active(tokens.access_token)).toBe(true);
    expect(await userinfo(tokens.access_token)).toBe(200);

    const disabled = await call('PATCH', `/acme/configuration/users/${id}`, { disabled: true });
    expect(disabled.body.disabled).toBe(true);
    expect(await signInStatus('ivan')).toBe(400);
    expect(await rp.active(tokens.access_token)).toBe(false);
    expect(await rp.active(tokens.refresh_token!)).toBe(false);
    expect(await userinfo(tokens.access_token)).toBe(401);
    expect((await oauthError(rp.refresh('web', tokens.refresh_token!))).error).toBe('invalid_grant');

    expect((await call('PATCH', `/acme/configuration/users/${id}`, { disabled: false })).body.disabled).toBe(false);
    expect(await rp.active(tokens.access_token)).toBe(false);
    expect((await oauthError(rp.refresh('web', tokens.refresh_token!))).error).toBe('invalid_grant');
    expect(await signInStatus('ivan')).toBe(302);
  });

  it("refuses the refresh token of an offline grant kept past its session's end, also once re-enabled", async () => {
    const { id } = await createUser('judy');
    const browser: Browser = rp.browser();
    const web = await rp.tokens({ username: 'judy', password: PASSWORD }, browser);
    const spa = await rp.tokens({ clientId: 'spa', scope: 'openid offline_access', username: 'judy', password: PASSWORD }, browser);
    // The web client's logout keeps the spa's offline grant (Back-Channel Logout 1.0 §2.7).
    expect((await browser.post(rp.as.end_session_endpoint!, { id_token_hint: web.id_token!, post_logout_redirect_uri: BYE }, WEB_ORIGIN)).status).toBe(302);
    const kept = await rp.refresh('spa', spa.refresh_token!);
    // spa is a public client, which cannot introspect: its token is tried at userinfo.
    expect(await userinfo(kept.access_token)).toBe(200);
    await call('PATCH', `/acme/configuration/users/${id}`, { disabled: true });
    expect(await userinfo(kept.access_token)).toBe(401);
    expect((await oauthError(rp.refresh('spa', kept.refresh_token!))).error).toBe('invalid_grant');
    // Disabling ended the kept grant for good.
    await call('PATCH', `/acme/configuration/users/${id}`, { disabled: false });
    expect((await oauthError(rp.refresh('spa', kept.refresh_token!))).error).toBe('invalid_grant');
  });

  it('deleted: tokens inactive, userinfo 401, refresh refused', async () => {
    const { id } = await createUser('kate');
    const tokens = await rp.tokens({ username: 'kate', password: PASSWORD });
    expect((await call('DELETE', `/acme/configuration/users/${id}`)).status).toBe(204);
    expect(await rp.active(tokens.access_token)).toBe(false);
    expect(await userinfo(tokens.access_token)).toBe(401);
    expect((await oauthError(rp.refresh('web', tokens.refresh_token!))).error).toBe('invalid_grant');
    expect(await signInStatus('kate')).toBe(400);
  });
});
