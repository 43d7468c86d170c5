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

/** The signed-out page (a GET of the logout endpoint without a session): a page every tenant shows without a flow. */
async function signedOutPage(query = '', headers: Record<string, string> = {}): Promise<string> {
  const res = await contract.fetch(rp.url(`/logout${query}`), { headers });
  expect(res.status).toBe(200);
  return res.text();
}

describe('admin API: locales', () => {
  it('PUT creates (201, Location, ETag) then replaces (200); GET, list; tags are case-insensitive', async () => {
    const created = await call('PUT', '/acme/configuration/locales/fr-CA', { messages: { 'signIn.submit': 'Ouvrir une session' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${server.issuer('acme')}/configuration/locales/fr-ca`);
    expect(created.headers.get('etag')).toBe('"0"');
    expect(created.body).toMatchObject({ tag: 'fr-ca', messages: { 'signIn.submit': 'Ouvrir une session' }, default: false });
    const replaced = await call('PUT', '/acme/configuration/locales/FR-ca', { messages: { 'signIn.heading': 'Bienvenue' } });
    expect(replaced.status).toBe(200);
    expect(replaced.headers.get('etag')).toBe('"1"');
    expect(replaced.body.messages).toEqual({ 'signIn.heading': 'Bienvenue' });
    expect((await call('GET', '/acme/configuration/locales/fr-ca')).body.messages).toEqual({ 'signIn.heading': 'Bienvenue' });
    expect((await call('GET', '/acme/configuration/locales')).body.items.map((l: { tag: string }) => l.tag)).toContain('fr-ca');
    expect((await call('GET', '/beta/configuration/locales/fr-ca')).status).toBe(404);
  });

  it('PATCH merges messages (null goes back to the built-in text), honours If-Match (412), DELETE ends it', async () => {
    await call('PUT', '/acme/configuration/locales/it', { messages: { 'signIn.heading': 'Accedi', 'signIn.submit': 'Entra' } });
    const patched = await call('PATCH', '/acme/configuration/locales/it', { messages: { 'signIn.submit': null, 'signIn.password': 'Password' } }, { 'if-match': '"0"' });
    expect(patched.status).toBe(200);
    expect(patched.body.messages).toEqual({ 'signIn.heading': 'Accedi', 'signIn.password': 'Password' });
    expect((await call('PATCH', '/acme/configuration/locales/it', { default: true }, { 'if-match': '"0"' })).status).toBe(412);
    expect((await call('PATCH', '/acme/configuration/locales/it', { tag: 'de' })).status).toBe(400);
    expect((await call('DELETE', '/acme/configuration/locales/it', undefined, { 'if-match': '"0"' })).status).toBe(412);
    expect((await call('DELETE', '/acme/configuration/locales/it')).status).toBe(204);
    expect((await call('GET', '/acme/configuration/locales/it')).status).toBe(404);
    expect((await call('DELETE', '/acme/configuration/locales/it')).status).toBe(404);
    expect((await call('PATCH', '/acme/configuration/locales/it', { messages: {} })).status).toBe(404);
  });

  it('refuses unknown keys, empty or over-long texts, non-text values and what is no language tag', async () => {
    const unknown = await call('PUT', '/acme/configuration/locales/de', { messages: { 'signIn.nope': 'x', 'signIn.submit': 'x'.repeat(501), 'signIn.heading': '', 'signIn.password': 3 } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['messages.signIn.heading', 'messages.signIn.nope', 'messages.signIn.password', 'messages.signIn.submit']);
    expect((await call('PUT', '/acme/configuration/locales/de', { messages: { ['__proto__']: 'x' } })).status).toBe(400);
    expect((await call('PUT', '/acme/configuration/locales/de', { messages: [] })).status).toBe(400);
    expect((await call('PUT', '/acme/configuration/locales/de', { messages: {}, extra: 1 })).status).toBe(400);
    expect((await call('PUT', '/acme/configuration/locales/not_a_tag', { messages: {} })).status).toBe(404);
    expect((await call('GET', '/acme/configuration/locales/de')).status).toBe(404);
    const scope = await adminCall(server, contract, 'PUT', '/acme/configuration/locales/de', await adminToken(server, 'acme', 'central:read'), { messages: {} });
    expect(scope.status).toBe(403);
  });
});

describe('page language', () => {
  it('follows ui_locales, then Accept-Language (q-values), else en; <html lang> says which', async () => {
    const fr = await signedOutPage('', { 'accept-language': 'de;q=0.9, fr;q=0.8, en;q=0.1' });
    expect(fr).toContain('<html lang="fr">');
    expect(fr).toContain('Vous êtes déconnecté.');
    const en = await signedOutPage('?ui_locales=es%20en', { 'accept-language': 'fr' });
    expect(en).toContain('<html lang="en">');
    expect(en).toContain('You are signed out.');
    expect(await signedOutPage('', { 'accept-language': 'es' })).toContain('<html lang="en">');
  });

  it("shows the tenant's own texts and, without a preference, the tenant's default language", async () => {
    await call('PUT', '/acme/configuration/locales/fr', { messages: { 'logout.doneText': 'À bientôt <b>!</b>' } });
    const fr = await signedOutPage('?ui_locales=fr');
    expect(fr).toContain('À bientôt &lt;b&gt;!&lt;/b&gt;');
    expect(fr).toContain('<h1>Déconnecté</h1>');
    expect(await signedOutPage('?ui_locales=fr', {})).not.toContain('You are');
    await call('PUT', '/acme/configuration/locales/nl', { messages: { 'logout.doneText': 'U bent afgemeld.' }, default: true });
    const nl = await signedOutPage();
    expect(nl).toContain('<html lang="nl">');
    expect(nl).toContain('U bent afgemeld.');
    // English where the tenant's language has no text of its own.
    expect(nl).toContain('<h1>Signed out</h1>');
    await call('PUT', '/acme/configuration/locales/fr', { messages: {}, default: true });
    expect((await call('GET', '/acme/configuration/locales/nl')).body.default).toBe(false);
    expect(await signedOutPage()).toContain('<html lang="fr">');
    expect(await signedOutPage('', { 'accept-language': 'nl-BE' })).toContain('U bent afgemeld.');
    // Another tenant keeps the built-in texts.
    const beta = await contract.fetch(`${server.issuer('beta')}/logout`, { headers: { 'accept-language': 'nl' } });
    expect(await beta.text()).toContain('<html lang="en">');
  });

  it('the sign-in page of an authorization request with ui_locales=fr is in French; discovery lists the languages', async () => {
    const browser = rp.browser();
    const req = await rp.request({ extra: { ui_locales: 'fr-CH fr' } });
    const page = await (await browser.follow(req.url, server.baseUrl)).text();
    expect(page).toContain('<label for="password">Mot de passe</label>');
    expect(page).toContain('<title>Connexion</title>');
    const metadata = (await (await contract.fetch(`${server.issuer('acme')}/.well-known/openid-configuration`)).json()) as { ui_locales_supported: string[] };
    expect(metadata.ui_locales_supported).toEqual(expect.arrayContaining(['en', 'fr', 'nl', 'fr-ca']));
  });

  it('the error page follows Accept-Language', async () => {
    const res = await contract.fetch(rp.url('/authorize?client_id=nobody'), { headers: { 'accept-language': 'fr' } });
    const html = await res.text();
    expect(html).toContain('<html lang="fr">');
    expect(html).toContain('Requête refusée');
  });
});
