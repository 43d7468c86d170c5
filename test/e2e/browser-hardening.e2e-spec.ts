import { ContractFetch } from '../support/contract-fetch.js';
import { ALICE_PASSWORD, REDIRECT, startTestServer, type TestServer } from '../support/server.js';

/**
 * The browser-facing hardening behind a TLS-terminating proxy: PUBLIC_URL is https while the
 * server (and this test) speaks plain HTTP. Cookies are `__Host-` cookies named for their
 * tenant, HSTS and nosniff go with every answer, and the pages run no inline script.
 */
const PUBLIC = 'https://idp.example';
let server: TestServer;
const contract = new ContractFetch();

beforeAll(async () => {
  server = await startTestServer(undefined, { publicUrl: PUBLIC });
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  expect(contract.violations.splice(0)).toEqual([]);
});

/** The server's own address for a URL the browser would reach through the proxy. */
const local = (url: string) => url.replace(PUBLIC, server.baseUrl);
const get = (url: string, cookie = '') => contract.fetch(local(url), { redirect: 'manual', headers: cookie ? { cookie } : {} });
const authorizeUrl = (extra: Record<string, string> = {}) =>
  `${PUBLIC}/acme/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'web', redirect_uri: REDIRECT, scope: 'openid', state: 's', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', ...extra })}`;
/** `name=value` of each Set-Cookie of the response. */
const pairs = (res: Response) => res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');

function expectHardened(res: Response): void {
  expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
}

function expectPagePolicy(res: Response): string {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  return csp;
}

/** Signs alice in through the login page; returns the cookies the browser then holds. */
async function signIn(): Promise<{ cookies: string[]; code: string }> {
  const start = await get(authorizeUrl());
  expect(start.status).toBe(302);
  const login = start.headers.get('location')!;
  expect(login.startsWith(`${PUBLIC}/acme/login?`)).toBe(true);
  const page = await get(login, pairs(start));
  expect(page.status).toBe(200);
  expectPagePolicy(page);
  expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  const html = await page.text();
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
  const interaction = new URL(login).searchParams.get('interaction')!;
  const done = await contract.fetch(`${server.baseUrl}/acme/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: pairs(start), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ interaction, username: 'alice', password: ALICE_PASSWORD }).toString(),
  });
  expect(done.status).toBe(302);
  expectHardened(done);
  return { cookies: [...start.headers.getSetCookie(), ...done.headers.getSetCookie()], code: new URL(done.headers.get('location')!).searchParams.get('code')! };
}

describe('behind https', () => {
  it('sets only __Host- cookies named for the tenant: Secure, Path=/, no Domain', async () => {
    const { cookies, code } = await signIn();
    expect(code).toBeTruthy();
    const names = cookies.map((c) => c.split('=')[0]);
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^__Host-interaction-[\w-]+\.acme$/), '__Host-sid.acme', '__Host-device.acme']));
    for (const c of cookies) {
      expect(c).toMatch(/^__Host-[\w.-]+=[^;]*; Path=\/; HttpOnly; SameSite=Lax; Secure(; Max-Age=\d+)?$/);
      expect(c).not.toMatch(/Domain=/i);
    }
  });

  it('honours the tenant session cookie only under its __Host- name, not a plain one a sibling subdomain could plant', async () => {
    const { cookies } = await signIn();
    const sid = cookies.find((c) => c.startsWith('__Host-sid.acme='))!.split(';')[0].split('=')[1];
    const planted = await get(authorizeUrl({ prompt: 'none' }), `sid=${sid}`);
    expect(new URL(planted.headers.get('location')!).searchParams.get('error')).toBe('login_required');
    const own = await get(authorizeUrl({ prompt: 'none' }), `__Host-sid.acme=${sid}`);
    expect(new URL(own.headers.get('location')!).searchParams.get('code')).toBeTruthy();
  });

  it('answers form_post with a page whose auto-submit is a same-origin script file, and whose form may post only to the client', async () => {
    const { cookies } = await signIn();
    const sid = cookies.find((c) => c.startsWith('__Host-sid.acme='))!.split(';')[0];
    const res = await get(authorizeUrl({ prompt: 'none', response_mode: 'form_post' }), sid);
    expect(res.status).toBe(200);
    expectHardened(res);
    const csp = expectPagePolicy(res);
    expect(csp).toContain(`form-action ${new URL(REDIRECT).origin}`);
    // Relying parties may frame it for silent renewal.
    expect(csp).not.toContain('frame-ancestors');
    const html = await res.text();
    expect(html).toContain('<script src="assets/form-post.js"></script>');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    const script = await get(new URL('assets/form-post.js', `${PUBLIC}/acme/authorize`).toString());
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toMatch(/max-age=31536000/);
    expectHardened(script);
    expect(await script.text()).toContain('document.forms[0].submit()');
  });

  it('sends HSTS and nosniff with every answer, JSON and errors included', async () => {
    for (const res of [await get(`${PUBLIC}/acme/.well-known/openid-configuration`), await get(`${PUBLIC}/acme/.well-known/jwks.json`), await get(`${PUBLIC}/nowhere/authorize`), await get(`${PUBLIC}/acme/no-such-route`)]) {
      expectHardened(res);
    }
  });
});

describe('over plain http', () => {
  let plain: TestServer;
  beforeAll(async () => {
    plain = await startTestServer();
  });
  afterAll(async () => {
    await plain?.close();
  });

  it('sends nosniff but no HSTS, and keeps the cookie names scoped by path', async () => {
    const res = await fetch(`${plain.baseUrl}/acme/authorize?${new URL(authorizeUrl()).searchParams}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('strict-transport-security')).toBeNull();
    expect(res.headers.getSetCookie()[0]).toMatch(/^interaction-[\w-]+=[^;]+; Path=\/acme; HttpOnly; SameSite=Lax; Max-Age=600$/);
  });
});
