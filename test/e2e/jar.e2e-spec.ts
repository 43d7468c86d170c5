import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { Browser } from '../support/browser.js';
import { endToEnd } from '../support/suite.js';
import { ALICE_PASSWORD, BOOTSTRAP_YAML, REDIRECT, type TestServer, WEB_SECRET } from '../support/server.js';
import { basic, jsonOf, type RelyingParty } from '../support/rp.js';

let server: TestServer;
let rp: RelyingParty;
type Keys = Awaited<ReturnType<typeof generateKeyPair>>;
let es: Keys;
let ps: Keys;
let stranger: Keys;

/** The usual tenants, and clients that sign their requests: `signer` (any algorithm), `pinned` (PS256 only, and only signed requests). */
async function bootstrap(): Promise<string> {
  [es, ps, stranger] = await Promise.all([generateKeyPair('ES256', { extractable: true }), generateKeyPair('PS256', { extractable: true }), generateKeyPair('ES256', { extractable: true })]);
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(es.publicKey)), kid: 'es' }, { ...(await exportJWK(ps.publicKey)), kid: 'ps' }] });
  const client = (id: string, extra: string) => `      - client_id: ${id}
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid profile"
        first_party: true
        jwks: ${jwks}${extra}
`;
  return BOOTSTRAP_YAML.replace('      - client_id: service', `${client('signer', '')}${client('pinned', '\n        request_object_signing_alg: PS256\n        require_signed_request_object: true')}      - client_id: service`);
}
const contract = endToEnd((s) => ({ server, rp } = s), bootstrap);
afterEach(() => server.clock.release());

/** The parameters of a fresh authorization request of `clientId`. */
async function requestParams(clientId: string, extra: Record<string, string> = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const params: Record<string, string> = {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'openid',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  };
  return { verifier, state, params };
}

/** Follows the browser from `/authorize` through the login form; the last response. */
async function authorize(url: string): Promise<Response> {
  const browser = rp.browser();
  let res = await browser.follow(url, server.baseUrl);
  if (res.status === 200 && (await res.clone().text()).includes('name="password"')) {
    const form = Browser.form(await res.text());
    res = await browser.post(form.action, { ...form.fields, username: 'alice', password: ALICE_PASSWORD });
  }
  return res;
}

/** A request object signed as a test pleases: the claims a well-behaved client sends, then `claims` over them. */
async function craft(key: Keys['privateKey'], alg: string, params: Record<string, string>, claims: Record<string, unknown> = {}, kid?: string): Promise<string> {
  const now = server.clock.now().getTime() / 1000;
  const payload = { ...params, iss: params.client_id, aud: rp.issuer, iat: Math.floor(now), exp: Math.floor(now) + 300, ...claims };
  for (const [k, v] of Object.entries(payload)) if (v === undefined) delete (payload as Record<string, unknown>)[k];
  return new SignJWT(payload).setProtectedHeader({ alg, ...(kid ? { kid } : {}) }).sign(key);
}

async function expectErrorPage(res: Response, error: string): Promise<void> {
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(await res.text()).toContain(error);
}

describe('request objects (JAR, RFC 9101)', () => {
  it('announces request objects by value, and the algorithms, never none', () => {
    expect(rp.as.request_parameter_supported).toBe(true);
    expect(rp.as.request_object_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256', 'EdDSA']);
    expect(rp.as.request_object_signing_alg_values_supported).not.toContain('none');
  });

  it('takes a request object from oauth4webapi (issueRequestObject) at /authorize, and reads only its parameters', async () => {
    const { verifier, state, params } = await requestParams('signer');
    const request = await oauth.issueRequestObject(rp.as, rp.client('signer'), params, { key: es.privateKey, kid: 'es' });
    // Parameters beside the request object are ignored (RFC 9101 §6.3).
    const res = await authorize(rp.authorizeUrl({ client_id: 'signer', request, state: 'ignored', redirect_uri: 'https://evil.example/cb' }));
    expect(res.status).toBe(302);
    const callback = oauth.validateAuthResponse(rp.as, rp.client('signer'), new URL(res.headers.get('location')!), state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      rp.as,
      rp.client('signer'),
      await oauth.authorizationCodeGrantRequest(rp.as, rp.client('signer'), oauth.ClientSecretBasic(WEB_SECRET), callback, REDIRECT, verifier, rp.options),
    );
    expect(tokens.access_token).toBeDefined();
  });

  it('takes a request object from openid-client (buildAuthorizationUrlWithJAR), and one pushed to /par (JAR with PAR)', async () => {
    for (const clientId of ['signer', 'pinned']) {
      const config = await oidc.discovery(new URL(server.issuer()), clientId, { client_secret: WEB_SECRET }, oidc.ClientSecretBasic(WEB_SECRET), { execute: [oidc.allowInsecureRequests] });
      config[oidc.customFetch] = contract.fetch;
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const params = { redirect_uri: REDIRECT, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state };
      const key = { key: ps.privateKey, kid: 'ps' };
      const byValue = await oidc.buildAuthorizationUrlWithJAR(config, params, key);
      expect(byValue.searchParams.has('request')).toBe(true);
      const res = await authorize(byValue.href);
      expect(res.status).toBe(302);
      await oidc.authorizationCodeGrant(config, new URL(res.headers.get('location')!), { pkceCodeVerifier: verifier, expectedState: state });

      const verifier2 = oidc.randomPKCECodeVerifier();
      const { searchParams } = await oidc.buildAuthorizationUrlWithJAR(config, { ...params, code_challenge: await oidc.calculatePKCECodeChallenge(verifier2) }, key);
      const pushed = await oidc.buildAuthorizationUrlWithPAR(config, searchParams);
      expect([...pushed.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
      const again = await authorize(pushed.href);
      expect(again.status).toBe(302);
      await oidc.authorizationCodeGrant(config, new URL(again.headers.get('location')!), { pkceCodeVerifier: verifier2, expectedState: state });
    }
  });

  it.each([
    ['alg none', async (p: Record<string, string>) => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...p, iss: 'signer', aud: rp.issuer, exp: Math.floor(Date.now() / 1000) + 60 })).toString('base64url')}.`],
    ['a key the client did not register', (p: Record<string, string>) => craft(stranger.privateKey, 'ES256', p, {}, 'es')],
    ['another audience', (p: Record<string, string>) => craft(es.privateKey, 'ES256', p, { aud: 'https://other.example' })],
    ['another issuer', (p: Record<string, string>) => craft(es.privateKey, 'ES256', p, { iss: 'web' })],
    ['no exp', (p: Record<string, string>) => craft(es.privateKey, 'ES256', p, { exp: undefined })],
    ['an exp more than 60 minutes ahead', (p: Record<string, string>) => craft(es.privateKey, 'ES256', p, { exp: Math.floor(server.clock.now().getTime() / 1000) + 3700 })],
    ['an expired one', (p: Record<string, string>) => craft(es.privateKey, 'ES256', p, { exp: Math.floor(server.clock.now().getTime() / 1000) - 120 })],
    ['an nbf older than 60 minutes', (p: Record<string, string>) => craft(es.privateKey, 'ES256', p, { nbf: Math.floor(server.clock.now().getTime() / 1000) - 3700 })],
    ['another client_id inside', (p: Record<string, string>) => craft(es.privateKey, 'ES256', { ...p, client_id: 'web' }, { iss: 'signer' })],
    ['a request_uri inside', (p: Record<string, string>) => craft(es.privateKey, 'ES256', { ...p, request_uri: 'urn:ietf:params:oauth:request_uri:abc' })],
    ['a tampered signature', async (p: Record<string, string>) => `${(await craft(es.privateKey, 'ES256', p)).slice(0, -4)}AAAA`],
    ['not a JWT', async () => 'not-a-jwt'],
  ])('refuses a request object with %s: invalid_request_object, at /authorize (a page) and at /par (JSON)', async (_, make) => {
    const { params } = await requestParams('signer');
    const request = await make(params);
    await expectErrorPage(await rp.browser().get(rp.authorizeUrl({ client_id: 'signer', request })), 'invalid_request_object');
    const pushed = await jsonOf(await rp.post('/par', { client_id: 'signer', request }, { authorization: basic('signer', WEB_SECRET) }));
    expect([pushed.status, pushed.body.error]).toEqual([400, 'invalid_request_object']);
  });

  it('refuses a request object of a client without jwks, one signed with another algorithm than the client registered, and a plain request of a client that requires request objects', async () => {
    const web = await requestParams('web');
    await expectErrorPage(await rp.browser().get(rp.authorizeUrl({ client_id: 'web', request: await craft(es.privateKey, 'ES256', web.params) })), 'invalid_request_object');
    const pinned = await requestParams('pinned');
    await expectErrorPage(await rp.browser().get(rp.authorizeUrl({ client_id: 'pinned', request: await craft(es.privateKey, 'ES256', pinned.params, {}, 'es') })), 'invalid_request_object');
    const plain = await rp.browser().get(rp.authorizeUrl(pinned.params));
    expect(plain.status).toBe(302);
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const pushedPlain = await jsonOf(await rp.post('/par', pinned.params, { authorization: basic('pinned', WEB_SECRET) }));
    expect([pushedPlain.status, pushedPlain.body.error]).toEqual([400, 'invalid_request']);
  });
});
