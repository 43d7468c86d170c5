import * as oauth from 'oauth4webapi';
import { Browser } from '../support/browser.js';
import { endToEnd } from '../support/suite.js';
import { BOOTSTRAP_YAML, REDIRECT, type TestServer, WEB_SECRET } from '../support/server.js';
import { decodeJwt, type RelyingParty } from '../support/rp.js';

let server: TestServer;
let rp: RelyingParty;
/** The usual tenants, and a client whose JARM responses are signed with ES256. */
const BOOTSTRAP = BOOTSTRAP_YAML.replace(
  '      - client_id: service',
  `      - client_id: jarm-es
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid"
        first_party: true
        authorization_signed_response_alg: ES256
      - client_id: service`,
);
endToEnd((s) => ({ server, rp } = s), BOOTSTRAP);

/** The response JWT at the client's redirect URI, checked by oauth4webapi (signature by the tenant's JWKS, iss, aud, exp, state); its parameters. */
function validate(params: URLSearchParams | URL, state: string, client: oauth.Client = rp.client('web')): Promise<URLSearchParams> {
  return oauth.validateJwtAuthResponse(rp.as, client, params, state, rp.options);
}

describe('JWT secured authorization responses (JARM)', () => {
  it('announces the modes and the algorithms, never none', () => {
    expect(rp.as.response_modes_supported).toEqual(expect.arrayContaining(['jwt', 'query.jwt', 'form_post.jwt']));
    expect(rp.as.authorization_signing_alg_values_supported).toEqual(['RS256', 'ES256', 'EdDSA']);
  });

  it.each(['query.jwt', 'jwt'])('answers response_mode=%s with one signed `response` (RS256 by default, iss, aud, a short exp), whose code redeems', async (mode) => {
    const signedIn = await rp.signIn(rp.browser(), { scope: 'openid', extra: { response_mode: mode } });
    expect(signedIn.res.status).toBe(302);
    const callback = signedIn.callback!;
    expect([...callback.searchParams.keys()]).toEqual(['response']);
    const jwt = decodeJwt(callback.searchParams.get('response')!);
    expect(jwt.header.alg).toBe('RS256');
    expect(jwt.payload).toMatchObject({ iss: rp.issuer, aud: 'web', state: signedIn.state, code: expect.any(String) });
    expect((jwt.payload.exp as number) - (jwt.payload.iat as number)).toBeLessThanOrEqual(60);
    const params = await validate(callback, signedIn.state);
    const tokens = await oauth.processAuthorizationCodeResponse(rp.as, rp.client('web'), await rp.redeemRequest('web', params, REDIRECT, signedIn.verifier), { expectedNonce: signedIn.nonce, requireIdToken: true });
    expect(tokens.access_token).toBeDefined();
  });

  it('answers response_mode=form_post.jwt with a page that posts the one field `response`', async () => {
    const browser = rp.browser();
    await rp.signIn(browser, { scope: 'openid' });
    const req = await rp.request({ scope: 'openid', extra: { response_mode: 'form_post.jwt' } });
    const page = await browser.get(req.url);
    expect(page.status).toBe(200);
    const form = Browser.form(await page.text());
    expect(form.action).toBe(REDIRECT);
    expect(Object.keys(form.fields)).toEqual(['response']);
    const params = await validate(new URLSearchParams(form.fields), req.state);
    expect(params.get('code')).toBeTruthy();
  });

  it("signs with the client's authorization_signed_response_alg", async () => {
    const signedIn = await rp.signIn(rp.browser(), { clientId: 'jarm-es', scope: 'openid', extra: { response_mode: 'query.jwt' } });
    expect(decodeJwt(signedIn.callback!.searchParams.get('response')!).header.alg).toBe('ES256');
    const params = await validate(signedIn.callback!, signedIn.state, { client_id: 'jarm-es', authorization_signed_response_alg: 'ES256' });
    expect(params.get('code')).toBeTruthy();
  });

  it('signs errors too: one found by the checks, and one found once the user is known', async () => {
    const req = await rp.request({ scope: 'admin', extra: { response_mode: 'query.jwt' } });
    const refused = await rp.browser().get(req.url);
    const location = new URL(refused.headers.get('location')!);
    expect([...location.searchParams.keys()]).toEqual(['response']);
    await expect(validate(location, req.state)).rejects.toMatchObject({ error: 'invalid_scope' });

    const silent = await rp.request({ scope: 'openid', extra: { response_mode: 'jwt', prompt: 'none' } });
    const none = new URL((await rp.browser().get(silent.url)).headers.get('location')!);
    await expect(validate(none, silent.state)).rejects.toMatchObject({ error: 'login_required' });
  });

  it('refuses an unknown response mode', async () => {
    const req = await rp.request({ scope: 'openid', extra: { response_mode: 'fragment.jwt' } });
    const res = await rp.browser().get(req.url);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });
});
