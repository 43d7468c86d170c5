import * as oauth from 'oauth4webapi';
import { endToEnd } from '../support/suite.js';
import { basic, decodeJwt, jsonOf, oauthError, RelyingParty } from '../support/rp.js';
import { BOOTSTRAP_YAML, extraTenant, SERVICE_SECRET, type TestServer, WEB_SECRET } from '../support/server.js';

/** The usual bootstrap plus a tenant whose access tokens live two seconds. */
const SHORT_TTL = 2;
const BOOTSTRAP = `${BOOTSTRAP_YAML}${extraTenant(
  'brief',
  { access_token_ttl: SHORT_TTL },
  `
      - client_id: service
        client_secret: "${SERVICE_SECRET}"
        grant_types: [client_credentials]
        scope: "orders:read"`,
)}
`;

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd((s) => ({ server, rp } = s), BOOTSTRAP);

describe('client authentication', () => {
  it('answers a request without client authentication with 401 invalid_client', async () => {
    const { access_token } = await rp.clientCredentials('service');
    const { status, body, headers } = await jsonOf(await rp.post('/introspect', { token: access_token }));
    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
    expect(headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it('answers a wrong Basic secret with 401 invalid_client and a Basic challenge', async () => {
    const { access_token } = await rp.clientCredentials('service');
    const res = await oauth.introspectionRequest(rp.as, rp.client('web'), oauth.ClientSecretBasic('wrong'), access_token, rp.options);
    const e = await oauthError(oauth.processIntrospectionResponse(rp.as, rp.client('web'), res));
    expect(e).toMatchObject({ status: 401, error: 'invalid_client' });
    expect(e.wwwAuthenticate).toMatch(/^Basic/);
  });

  it('does not let the public client spa introspect, not even its own token', async () => {
    const tokens = await rp.tokens({ clientId: 'spa', scope: 'openid offline_access' });
    const res = await oauth.introspectionRequest(rp.as, rp.client('spa'), oauth.None(), tokens.access_token, rp.options);
    expect(await oauthError(oauth.processIntrospectionResponse(rp.as, rp.client('spa'), res))).toMatchObject({ status: 401, error: 'invalid_client' });
  });

  it('lets a client_secret_post client introspect (told nothing of a token that is neither its own nor for its resource)', async () => {
    const { access_token } = await rp.clientCredentials('service');
    expect(await rp.introspect(access_token, 'third')).toEqual({ active: false });
  });

  it('answers a missing token with invalid_request', async () => {
    const { status, body } = await jsonOf(await rp.post('/introspect', {}, { authorization: basic('web', WEB_SECRET) }));
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
  });
});

describe('tokens that are not active', () => {
  it.each([
    ['garbage', 'garbage'],
    ['an unsigned JWT', `${Buffer.from('{"alg":"none","typ":"at+jwt","kid":"x"}').toString('base64url')}.${Buffer.from('{"jti":"x"}').toString('base64url')}.`],
    ['a string shaped like a refresh token', `${'A'.repeat(22)}.${'B'.repeat(43)}`],
    ['a very long string', 'x'.repeat(20_000)],
  ])('answers %s with exactly {active:false}', async (_, token) => {
    const res = await oauth.introspectionRequest(rp.as, rp.client('web'), rp.auth('web'), token, rp.options);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await oauth.processIntrospectionResponse(rp.as, rp.client('web'), res)).toEqual({ active: false });
  });

  it('answers an access token whose signature was altered with {active:false}', async () => {
    const { access_token } = await rp.clientCredentials('service');
    const [h, p, sig] = access_token.split('.');
    const altered = `${h}.${p}.${sig.startsWith('A') ? `B${sig.slice(1)}` : `A${sig.slice(1)}`}`;
    expect(await rp.introspect(altered)).toEqual({ active: false });
    const payload = Buffer.from(JSON.stringify({ ...decodeJwt(access_token).payload, scope: 'orders:write' })).toString('base64url');
    expect(await rp.introspect(`${h}.${payload}.${sig}`)).toEqual({ active: false });
  });

  it('answers another spelling of a valid signature with {active:false}', async () => {
    const { access_token } = await rp.clientCredentials('service');
    const [h, p, sig] = access_token.split('.');
    // ES256: 64 bytes in 86 characters; the last one carries 2 spare bits.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const spareBits = `${sig.slice(0, -1)}${alphabet[alphabet.indexOf(sig.at(-1)!) ^ 1]}`;
    const standard = Buffer.from(sig, 'base64url').toString('base64').replace(/=+$/, '');
    for (const spelling of [`${sig}!!`, `${sig},`, `${sig}=`, `${sig.slice(0, 10)} ${sig.slice(10)}`, spareBits, ...(standard !== sig ? [standard] : [])]) {
      expect(await rp.introspect(`${h}.${p}.${spelling}`)).toEqual({ active: false });
    }
    expect(await rp.introspect(access_token)).toMatchObject({ active: true });
  });

  it('answers a token of tenant other with {active:false} at acme (and the other way round)', async () => {
    const other = await RelyingParty.discover(server, contract, 'other');
    const cc = await oauth.clientCredentialsGrantRequest(other.as, other.client('web'), oauth.ClientSecretBasic(WEB_SECRET), {}, other.options);
    const { access_token } = await oauth.processClientCredentialsResponse(other.as, other.client('web'), cc);
    const atOther = await oauth.introspectionRequest(other.as, other.client('web'), oauth.ClientSecretBasic(WEB_SECRET), access_token, other.options);
    const described = await oauth.processIntrospectionResponse(other.as, other.client('web'), atOther);
    expect(described).toMatchObject({ active: true, iss: other.issuer });
    // No scope granted (openid is a user's scope): the token and its description carry no scope at all (RFC 9068 §2.2.3).
    expect(decodeJwt(access_token).payload).not.toHaveProperty('scope');
    expect(described).not.toHaveProperty('scope');
    expect(await rp.introspect(access_token)).toEqual({ active: false });

    const acme = await rp.tokens();
    for (const token of [acme.access_token, acme.refresh_token!]) {
      const res = await oauth.introspectionRequest(other.as, other.client('web'), oauth.ClientSecretBasic(WEB_SECRET), token, other.options);
      expect(await oauth.processIntrospectionResponse(other.as, other.client('web'), res)).toEqual({ active: false });
      expect((await rp.introspect(token)).active).toBe(true);
    }
  });

  it('answers expired access tokens with {active:false} while the refresh token stays active', async () => {
    const brief = await RelyingParty.discover(server, contract, 'brief');
    // The server's time stands still until the test moves it: a slow machine cannot expire the tokens early.
    server.clock.freeze();
    const user = await brief.tokens({ scope: 'openid offline_access' });
    const service = await brief.clientCredentials('service');
    expect(user.expires_in).toBe(SHORT_TTL);
    for (const token of [user.access_token, service.access_token, user.refresh_token!]) expect(await brief.active(token)).toBe(true);

    const exp = Math.max(...[user.access_token, service.access_token].map((t) => decodeJwt(t).payload.exp as number));
    server.clock.advance(exp * 1000 - server.clock.now().getTime() + 1000);

    expect(await brief.introspect(user.access_token)).toEqual({ active: false });
    expect(await brief.introspect(service.access_token)).toEqual({ active: false });
    expect(await brief.introspect(user.refresh_token!)).toMatchObject({ active: true, token_type: 'refresh_token' });
    // And the refresh token gives a new, active access token.
    const next = await brief.refresh('web', user.refresh_token!);
    expect(await brief.active(next.access_token)).toBe(true);
    server.clock.release();
  });
});

describe('token_type_hint', () => {
  it('describes an access token and a refresh token, whatever the hint says', async () => {
    const tokens = await rp.tokens();
    const sid = decodeJwt(tokens.id_token!).payload.sid;
    const access = { active: true, token_type: 'Bearer', client_id: 'web', username: 'alice', scope: 'openid profile email offline_access', iss: rp.issuer, sid };
    const refresh = { active: true, token_type: 'refresh_token', client_id: 'web', username: 'alice', sid };
    expect(await rp.introspect(tokens.access_token, 'web', 'access_token')).toMatchObject({ ...access, jti: decodeJwt(tokens.access_token).payload.jti });
    expect(await rp.introspect(tokens.access_token, 'web', 'refresh_token')).toMatchObject(access);
    expect(await rp.introspect(tokens.refresh_token!, 'web', 'refresh_token')).toMatchObject(refresh);
    expect(await rp.introspect(tokens.refresh_token!, 'web', 'access_token')).toMatchObject(refresh);
    const unknownHint = await rp.post('/introspect', { token: tokens.refresh_token!, token_type_hint: 'id_token' }, { authorization: basic('web', WEB_SECRET) });
    expect((await jsonOf(unknownHint)).body).toMatchObject(refresh);
  });

  it("tells no other client about a client's tokens, access or refresh (introspection by audience: none of them is a resource server of theirs)", async () => {
    const tokens = await rp.tokens();
    for (const caller of ['third', 'service']) {
      expect({ caller, ...(await rp.introspect(tokens.refresh_token!, caller)) }).toEqual({ caller, active: false });
      expect({ caller, ...(await rp.introspect(tokens.access_token, caller)) }).toEqual({ caller, active: false });
    }
    expect(await rp.introspect(tokens.refresh_token!, 'web')).toMatchObject({ active: true, token_type: 'refresh_token', client_id: 'web' });
    expect(await rp.introspect(tokens.access_token, 'web')).toMatchObject({ active: true, token_type: 'Bearer', client_id: 'web' });
  });

  it('describes a client_credentials token without a user', async () => {
    const { access_token } = await rp.clientCredentials('service', 'orders:read');
    const info = await rp.introspect(access_token, 'service', 'access_token');
    expect(info).toMatchObject({ active: true, token_type: 'Bearer', client_id: 'service', sub: 'service', scope: 'orders:read' });
    expect(info.username).toBeUndefined();
    expect(info.sid).toBeUndefined();
    expect(info.exp! - info.iat!).toBe(300);
  });
});
