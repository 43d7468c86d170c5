import { endToEnd } from '../support/suite.js';
import { basic, jsonOf, RelyingParty } from '../support/rp.js';
import { REDIRECT, SERVICE_SECRET, WEB_SECRET } from '../support/server.js';

let rp: RelyingParty;
let baseUrl: string;
const contract = endToEnd((s) => {
  ({ rp } = s);
  baseUrl = s.server.baseUrl;
});

/** The origin of the public client `spa` (the origin of its redirect URI), and one that belongs to no client. */
const SPA_ORIGIN = new URL(REDIRECT).origin;
const ELSEWHERE = 'https://elsewhere.example';
const SPA = { clientId: 'spa', scope: 'openid profile offline_access' };

function preflight(path: string, origin: string | undefined, method = 'POST', headers = 'content-type') {
  return contract.fetch(rp.url(path), {
    method: 'OPTIONS',
    headers: { ...(origin ? { origin } : {}), 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
}

describe('public documents', () => {
  it.each([['/.well-known/openid-configuration'], ['/.well-known/oauth-authorization-server'], ['/.well-known/jwks.json']])(
    '%s may be read from any origin, with or without an Origin header',
    async (path) => {
      for (const headers of [{ origin: ELSEWHERE }, {}] as Record<string, string>[]) {
        const res = await contract.fetch(rp.url(path), { headers });
        expect(res.status).toBe(200);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
      }
    },
  );

  it('answers a preflight for a public document (a library that adds a header to its GET)', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json']) {
      const res = await preflight(path, ELSEWHERE, 'GET', 'x-requested-with');
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toBe('GET');
      expect(res.headers.get('access-control-allow-headers')).toBe('*');
    }
  });

  it('so may the RFC 8414 path form of the metadata', async () => {
    const res = await fetch(`${baseUrl}/.well-known/oauth-authorization-server/acme`, { headers: { origin: ELSEWHERE } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('preflight', () => {
  it.each([
    ['/token', 'POST'],
    ['/oauth/token', 'POST'],
    ['/revoke', 'POST'],
    ['/userinfo', 'GET, POST'],
    ['/oauth/userinfo', 'GET, POST'],
  ])('OPTIONS %s answers 204 with the caller origin, methods %s, and the headers a client sends', async (path, methods) => {
    const res = await preflight(path, SPA_ORIGIN, 'POST', 'authorization');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(SPA_ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toBe(methods);
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, DPoP');
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(res.headers.get('vary')).toMatch(/Origin/);
  });

  it('OPTIONS without an Origin, or with the opaque origin null, is not a preflight (405, Allow: POST)', async () => {
    for (const origin of [undefined, 'null']) {
      const res = await preflight('/token', origin);
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('introspection is for resource servers: no preflight, and no CORS header on its answers', async () => {
    const pre = await fetch(rp.url('/introspect'), { method: 'OPTIONS', headers: { origin: SPA_ORIGIN, 'access-control-request-method': 'POST' } });
    expect(pre.status).toBe(405);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const res = await rp.post('/introspect', { token: 'anything' }, { authorization: basic('web', WEB_SECRET), origin: SPA_ORIGIN });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

/** How a public client's access token is seen to live: a public client cannot introspect. */
async function userinfoStatus(accessToken: string): Promise<number> {
  const res = await contract.fetch(rp.url('/userinfo'), { headers: { authorization: `Bearer ${accessToken}` } });
  await res.body?.cancel();
  return res.status;
}

describe('token endpoint from a browser', () => {
  it('answers a public client on its own origin, with the origin in Access-Control-Allow-Origin', async () => {
    const tokens = await rp.tokens(SPA);
    const res = await jsonOf(await rp.post('/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: 'spa' }, { origin: SPA_ORIGIN }));
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(SPA_ORIGIN);
    expect(await userinfoStatus(res.body.access_token as string)).toBe(200);
  });

  it('refuses a public client from another origin before anything happens: the refresh token stays usable', async () => {
    const tokens = await rp.tokens(SPA);
    const res = await jsonOf(await rp.post('/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: 'spa' }, { origin: ELSEWHERE }));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect((await rp.refresh('spa', tokens.refresh_token!)).access_token).toBeTruthy();
  });

  it('refuses a confidential client called from a browser, even on its own origin: no token is issued', async () => {
    for (const [id, secret] of [
      ['web', WEB_SECRET],
      ['service', SERVICE_SECRET],
    ]) {
      const res = await jsonOf(await rp.post('/token', { grant_type: 'client_credentials' }, { authorization: basic(id, secret), origin: SPA_ORIGIN }));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('lets the page read an error raised before the client is known', async () => {
    const res = await jsonOf(await rp.post('/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'no-such-client' }, { origin: ELSEWHERE }));
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.headers.get('access-control-allow-origin')).toBe(ELSEWHERE);
  });

  it('answers no CORS header to a request without an Origin', async () => {
    const res = await rp.post('/token', { grant_type: 'client_credentials' }, { authorization: basic('service', SERVICE_SECRET) });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('revocation from a browser', () => {
  it('revokes for a public client on its own origin and refuses another origin', async () => {
    const tokens = await rp.tokens(SPA);
    const refused = await rp.post('/revoke', { token: tokens.access_token, client_id: 'spa' }, { origin: ELSEWHERE });
    expect(refused.status).toBe(400);
    expect(await userinfoStatus(tokens.access_token)).toBe(200);
    const res = await rp.post('/revoke', { token: tokens.access_token, client_id: 'spa' }, { origin: SPA_ORIGIN });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(SPA_ORIGIN);
    expect(await userinfoStatus(tokens.access_token)).toBe(401);
  });
});

describe('userinfo from a browser', () => {
  const userinfo = (token: string, origin: string) => contract.fetch(rp.url('/userinfo'), { headers: { authorization: `Bearer ${token}`, origin } });

  it("answers on the origin of the token's client, and refuses another origin", async () => {
    const { access_token } = await rp.tokens(SPA);
    const ok = await userinfo(access_token, SPA_ORIGIN);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(SPA_ORIGIN);
    expect(((await ok.json()) as { sub?: string }).sub).toBeTruthy();
    const refused = await jsonOf(await userinfo(access_token, ELSEWHERE));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_request');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets the page read the challenge of an invalid token, so it knows to sign in again', async () => {
    const res = await userinfo('not-a-token', ELSEWHERE);
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(ELSEWHERE);
    expect(res.headers.get('access-control-expose-headers')).toBe('WWW-Authenticate, X-Request-Id, DPoP-Nonce');
  });
});
