import { ADMIN_BOOTSTRAP, adminCall, adminToken, type AdminAnswer } from '../support/admin.js';
import type { RelyingParty } from '../support/rp.js';
import type { TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd((s) => ({ server, rp } = s), ADMIN_BOOTSTRAP);

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<AdminAnswer> {
  return adminCall(server, contract, method, path, await adminToken(server, path.split('/')[1]), body, headers);
}

const stylesheet = (tenant = 'acme', headers: Record<string, string> = {}) => contract.fetch(`${server.issuer(tenant)}/assets/theme.css`, { headers });

const THEME = { logo_url: 'https://cdn.example.com/acme/logo.svg', colors: { primary: '#0A7', background: '#fafafa' }, css: 'h1{letter-spacing:.02em}' };

describe('admin API: theme', () => {
  it('PUT creates (201, ETag) then replaces (200); PATCH merges; If-Match; DELETE goes back to the built-in look', async () => {
    expect((await call('GET', '/acme/configuration/theme')).status).toBe(404);
    const created = await call('PUT', '/acme/configuration/theme', THEME);
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"0"');
    expect(created.body).toMatchObject(THEME);
    const patched = await call('PATCH', '/acme/configuration/theme', { colors: { background: null, text: '#222222' }, css: null }, { 'if-match': '"0"' });
    expect(patched.status).toBe(200);
    expect(patched.body.colors).toEqual({ primary: '#0A7', text: '#222222' });
    expect(patched.body.css).toBeUndefined();
    expect((await call('PATCH', '/acme/configuration/theme', { css: 'x' }, { 'if-match': '"0"' })).status).toBe(412);
    expect((await call('PUT', '/acme/configuration/theme', THEME)).status).toBe(200);
    expect((await call('GET', '/beta/configuration/theme')).status).toBe(404);
    expect((await call('DELETE', '/acme/configuration/theme')).status).toBe(204);
    expect((await call('GET', '/acme/configuration/theme')).status).toBe(404);
    expect((await call('DELETE', '/acme/configuration/theme')).status).toBe(404);
  });

  it('refuses colours that are not hex, a logo that is not https, an over-long stylesheet, unknown fields', async () => {
    for (const bad of [
      { colors: { primary: 'red' } },
      { colors: { primary: '#12345g' } },
      { colors: { primary: '#fff;}body{x:y' } },
      { colors: { shadow: '#000' } },
      { logo_url: 'http://cdn.example.com/logo.png' },
      { logo_url: 'javascript:alert(1)' },
      { logo_url: 'https://user:pw@cdn.example.com/logo.png' },
      { css: 'a'.repeat(32 * 1024 + 1) },
      { font: 'serif' },
    ]) {
      const res = await call('PUT', '/acme/configuration/theme', bad);
      expect([res.status, bad]).toEqual([400, bad]);
    }
    expect((await call('GET', '/acme/configuration/theme')).status).toBe(404);
  });
});

describe('the theme on the pages', () => {
  it('theme.css: the built-in colours, then the tenant\'s as custom properties and its CSS; ETag and 304', async () => {
    const plain = await stylesheet();
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^text\/css/);
    expect(plain.headers.get('cache-control')).toBe('no-cache');
    expect(await plain.text()).toContain('--edge-primary:#1a56db');
    await call('PUT', '/acme/configuration/theme', THEME);
    const themed = await stylesheet();
    const css = await themed.text();
    expect(css).toContain('--edge-primary:#0A7');
    expect(css).toContain('--edge-background:#fafafa');
    expect(css).toContain('h1{letter-spacing:.02em}');
    const etag = themed.headers.get('etag')!;
    expect(etag).not.toBe(plain.headers.get('etag'));
    expect((await stylesheet('acme', { 'if-none-match': etag })).status).toBe(304);
    expect((await stylesheet('acme', { 'if-none-match': plain.headers.get('etag')! })).status).toBe(200);
    expect(await (await stylesheet('beta')).text()).toContain('--edge-primary:#1a56db');
    expect((await contract.fetch(`${server.baseUrl}/nosuch/assets/theme.css`)).status).toBe(404);
  });

  it('every page links the stylesheet and shows the logo, whose origin alone the CSP adds to img-src; no inline script allowed', async () => {
    await call('PUT', '/acme/configuration/theme', THEME);
    const res = await contract.fetch(rp.url('/logout'));
    const html = await res.text();
    expect(html).toContain('<link rel="stylesheet" href="assets/theme.css">');
    expect(html).toContain('<img class="logo" src="https://cdn.example.com/acme/logo.svg" alt="">');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("img-src 'self' https://cdn.example.com;");
    expect(csp).toContain("style-src 'self' 'sha256-");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-inline');
    const page = await (await rp.browser().follow((await rp.request()).url, server.baseUrl)).text();
    expect(page).toContain('<link rel="stylesheet" href="assets/theme.css">');
    const beta = await contract.fetch(`${server.issuer('beta')}/logout`);
    expect(await beta.text()).not.toContain('<img');
    expect(beta.headers.get('content-security-policy')).toContain("img-src 'self';");
  });
});
