import * as oauth from 'oauth4webapi';
import { KeyRing } from '../../src/infrastructure/crypto/key-ring.js';
import { signJwt } from '../../src/infrastructure/crypto/jws.js';
import type { TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';
import { nodeRequest } from '../support/node-request.js';
import { decodeJwt, RelyingParty } from '../support/rp.js';

let rp: RelyingParty;
let server: TestServer;
/** An access token of alice with `openid profile email offline_access`, and her subject. */
let token: string;
let sub: string;
const contract = endToEnd(async (s) => {
  ({ rp, server } = s);
  const tokens = await rp.tokens();
  token = tokens.access_token;
  sub = decodeJwt(tokens.id_token!).payload.sub as string;
});

/** A bare RFC 6750 challenge: no error attribute, since the request carried no token (§3.1). */
const BARE_CHALLENGE = /^Bearer(\s+realm="[^"]*")?$/;

async function userinfo(path: string, init: RequestInit = {}): Promise<{ status: number; challenge: string | null; cacheControl: string | null; text: string }> {
  const res = await contract.fetch(`${rp.issuer}${path}`, init);
  return { status: res.status, challenge: res.headers.get('www-authenticate'), cacheControl: res.headers.get('cache-control'), text: await res.text() };
}

/** The Bearer challenge oauth4webapi finds in an error response. */
async function challengeOf(accessToken: string): Promise<{ status: number; error?: string; body: unknown }> {
  const res = await oauth.userInfoRequest(rp.as, rp.client('web'), accessToken, rp.options);
  try {
    await oauth.processUserInfoResponse(rp.as, rp.client('web'), oauth.skipSubjectCheck, res);
  } catch (e) {
    if (!(e instanceof oauth.WWWAuthenticateChallengeError)) throw e;
    const [challenge] = e.cause;
    expect(challenge.scheme).toBe('bearer');
    return { status: e.status, error: challenge.parameters.error, body: await e.response.json() };
  }
  throw new Error('expected a WWW-Authenticate challenge');
}

describe('requests without a usable token', () => {
  it('answers a request without Authorization with 401, a bare Bearer challenge and no error body', async () => {
    const r = await userinfo('/userinfo');
    expect(r.status).toBe(401);
    expect(r.challenge).toMatch(BARE_CHALLENGE);
    expect(r.text).toBe('');
  });

  it('ignores a token in the query string (answered as no token)', async () => {
    const r = await userinfo(`/userinfo?access_token=${encodeURIComponent(token)}`);
    expect(r.status).toBe(401);
    expect(r.challenge).toMatch(BARE_CHALLENGE);
    expect(r.text).toBe('');
  });

  it('ignores a token in a form body (answered as no token)', async () => {
    const r = await userinfo('/userinfo', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ access_token: token }) });
    expect(r.status).toBe(401);
    expect(r.challenge).toMatch(BARE_CHALLENGE);
    expect(r.text).toBe('');
  });

  it('refuses a token sent both in the header and in the query or a form body with 400 invalid_request (RFC 6750 §2, §3.1)', async () => {
    const bearer = { authorization: `Bearer ${token}` };
    const twice = [
      await userinfo(`/userinfo?access_token=${encodeURIComponent(token)}`, { headers: bearer }),
      await userinfo('/userinfo', { method: 'POST', headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ access_token: token }) }),
    ];
    for (const r of twice) {
      expect(r.status).toBe(400);
      expect(r.challenge).toMatch(/^Bearer .*error="invalid_request"/);
      expect(JSON.parse(r.text)).toMatchObject({ error: 'invalid_request' });
    }
    // A query that cannot be read could hide one.
    const unreadable = await userinfo(`/userinfo?access_token=${encodeURIComponent(token)}&x=%zz`, { headers: bearer });
    expect({ status: unreadable.status, error: JSON.parse(unreadable.text).error }).toEqual({ status: 400, error: 'invalid_request' });
    // The header alone is answered, and so is it beside an empty access_token (an empty parameter is absent, RFC 6749 §3.1).
    expect((await userinfo('/userinfo', { headers: bearer })).status).toBe(200);
    expect((await userinfo('/userinfo?access_token=', { headers: bearer })).status).toBe(200);
  });

  it('refuses two Authorization headers with 400 invalid_request, whichever comes first', async () => {
    for (const authorization of [[`Bearer ${token}`, 'Bearer other'], ['Bearer other', `Bearer ${token}`]]) {
      const r = await nodeRequest(`${rp.issuer}/userinfo`, 'GET', { authorization });
      expect(r.status).toBe(400);
      expect(r.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_request"/);
      expect(r.headers['cache-control']).toBe('no-store');
    }
  });

  it('refuses a Bearer header that is not Bearer, spaces and a token with 400 invalid_request (RFC 6750 §2.1, §3.1)', async () => {
    for (const authorization of [`Bearer\t${token}`, 'Bearer', `Bearer ${token} extra`, `Bearer ${token},`, 'Bearer {"a":1}']) {
      const r = await userinfo('/userinfo', { headers: { authorization } });
      expect({ authorization, status: r.status }).toEqual({ authorization, status: 400 });
      expect(r.challenge).toMatch(/^Bearer .*error="invalid_request"/);
      expect(JSON.parse(r.text)).toMatchObject({ error: 'invalid_request' });
    }
    // The scheme in any case, and more than one space.
    for (const authorization of [`bearer ${token}`, `BEARER   ${token}`]) expect((await userinfo('/userinfo', { headers: { authorization } })).status).toBe(200);
  });

  it('takes a token signed with the right key only when its header and claims are those of an access token issued here (RFC 7515 §4.1.11, RFC 9068 §2.2, RFC 7519 §4.1.5)', async () => {
    const key = await server.app.get(KeyRing).signingKey('acme', 'ES256');
    const { header, payload } = decodeJwt(token) as { header: Record<string, unknown>; payload: Record<string, unknown> };
    const resigned = (h: Record<string, unknown>, p: Record<string, unknown>) => signJwt({ ...(h as { alg: 'ES256' }) }, p, key.privateKey);
    const { exp: _exp, ...noExp } = payload;
    const { aud: _aud, ...noAud } = payload;
    // The same header and claims, signed again: taken (so what follows is refused for what it changes).
    expect((await userinfo('/userinfo', { headers: { authorization: `Bearer ${await resigned(header, payload)}` } })).status).toBe(200);
    const odd: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      ['an extension it must understand', { ...header, crit: ['x-unknown'], 'x-unknown': 1 }, payload],
      ['another audience', header, { ...payload, aud: 'https://elsewhere.example' }],
      ['no audience', header, noAud],
      ['no expiry', header, noExp],
      ['an expiry that is no number', header, { ...payload, exp: String(payload.exp) }],
      ['a not-before ahead', header, { ...payload, nbf: (payload.iat as number) + 3600 }],
      ['a scope that is no string', header, { ...payload, scope: ['openid', 'email'] }],
    ];
    for (const [what, h, p] of odd) {
      const forged = await resigned(h, p);
      expect({ what, status: (await userinfo('/userinfo', { headers: { authorization: `Bearer ${forged}` } })).status }).toEqual({ what, status: 401 });
      expect({ what, active: await rp.active(forged) }).toEqual({ what, active: false });
    }
  });

  it('answers another authentication scheme as no token', async () => {
    const r = await userinfo('/userinfo', { headers: { authorization: `Basic ${Buffer.from('web:secret').toString('base64')}` } });
    expect(r.status).toBe(401);
    expect(r.challenge).toMatch(BARE_CHALLENGE);
  });

  it('answers a garbage token with 401 invalid_token and error="invalid_token" in the challenge', async () => {
    expect(await challengeOf('garbage')).toMatchObject({ status: 401, error: 'invalid_token', body: { error: 'invalid_token' } });
    const r = await userinfo('/userinfo', { headers: { authorization: 'Bearer garbage' } });
    expect(r.challenge).toMatch(/^Bearer .*error="invalid_token"/);
    expect(r.cacheControl).toBe('no-store');
  });

  it('answers a revoked token with 401 invalid_token', async () => {
    const tokens = await rp.tokens();
    await rp.revoke(tokens.access_token);
    expect(await challengeOf(tokens.access_token)).toMatchObject({ status: 401, error: 'invalid_token' });
  });

  it('answers an ID token used as an access token with 401 invalid_token', async () => {
    const tokens = await rp.tokens({ scope: 'openid' });
    expect(await challengeOf(tokens.id_token!)).toMatchObject({ status: 401, error: 'invalid_token' });
  });

  it("answers a client's own token (client_credentials: no user, never openid) with 403 insufficient_scope", async () => {
    const { access_token } = await rp.clientCredentials('service');
    expect(await challengeOf(access_token)).toMatchObject({ status: 403, error: 'insufficient_scope', body: { error: 'insufficient_scope' } });
  });

  it('answers a user token without the openid scope with 403 insufficient_scope', async () => {
    const tokens = await rp.tokens({ scope: 'profile' });
    expect(decodeJwt(tokens.access_token).payload.scope).toBe('profile');
    expect(tokens.id_token).toBeUndefined();
    expect(await challengeOf(tokens.access_token)).toMatchObject({ status: 403, error: 'insufficient_scope', body: { error: 'insufficient_scope' } });
  });
});

describe('claims', () => {
  it('releases only sub for scope=openid', async () => {
    const tokens = await rp.tokens({ scope: 'openid' });
    const res = await oauth.userInfoRequest(rp.as, rp.client('web'), tokens.access_token, rp.options);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await oauth.processUserInfoResponse(rp.as, rp.client('web'), sub, res)).toEqual({ sub });
  });

  it('releases the email claims for scope=openid email', async () => {
    const tokens = await rp.tokens({ scope: 'openid email' });
    const res = await oauth.userInfoRequest(rp.as, rp.client('web'), tokens.access_token, rp.options);
    expect(await oauth.processUserInfoResponse(rp.as, rp.client('web'), sub, res)).toEqual({ sub, email: 'alice@example.com', email_verified: true });
  });

  it('answers GET and POST at /userinfo and /oauth/userinfo alike', async () => {
    const expected = { sub, name: 'Alice Liddell', given_name: 'Alice', family_name: 'Liddell', updated_at: expect.any(Number), email: 'alice@example.com', email_verified: true };
    const authorization = `Bearer ${token}`;
    for (const path of ['/userinfo', '/oauth/userinfo']) {
      for (const method of ['GET', 'POST']) {
        const r = await userinfo(path, { method, headers: { authorization } });
        expect({ path, method, status: r.status, cacheControl: r.cacheControl }).toEqual({ path, method, status: 200, cacheControl: 'no-store' });
        expect(JSON.parse(r.text)).toEqual(expected);
      }
    }
    // POST with a form body: the body is ignored, the header counts.
    const r = await userinfo('/oauth/userinfo', { method: 'POST', headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' }, body: 'unrelated=garbage' });
    expect(r.status).toBe(200);
    const alias = await oauth.userInfoRequest({ ...rp.as, userinfo_endpoint: `${rp.issuer}/oauth/userinfo` }, rp.client('web'), token, rp.options);
    expect(await oauth.processUserInfoResponse(rp.as, rp.client('web'), sub, alias)).toEqual(expected);
  });

  it('answers the oauth alias without a token like /userinfo', async () => {
    const r = await userinfo('/oauth/userinfo', { method: 'POST' });
    expect(r.status).toBe(401);
    expect(r.challenge).toMatch(BARE_CHALLENGE);
  });
});
