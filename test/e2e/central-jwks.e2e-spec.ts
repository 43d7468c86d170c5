import { jest } from '@jest/globals';
import * as oidc from 'openid-client';
import { EVENT_STORE, type EventStore } from '../../src/infrastructure/event-store/event-store.port.js';
import { KeyRotation } from '../../src/central/jwks/key-rotation.js';
import { ADMIN_BOOTSTRAP, adminCall, adminToken } from '../support/admin.js';
import { decodeJwt, type RelyingParty } from '../support/rp.js';
import { type TestServer, WEB_SECRET } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd((s) => ({ server, rp } = s), ADMIN_BOOTSTRAP);

const call = (method: string, path: string, bearer: string | undefined, body?: unknown) => adminCall(server, contract, method, path, bearer, body);
const kid = (jwt: string) => decodeJwt(jwt).header.kid as string;
const published = async () => ((await (await fetch(`${server.issuer()}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);

/** Time passing for everyone in this process: the server's clock and the relying party's (both read Date.now). */
const realNow = Date.now.bind(Date);
let shift = 0;
const passes = (seconds: number) => {
  shift += seconds * 1000;
};
beforeAll(() => {
  jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
});
afterAll(() => {
  jest.restoreAllMocks();
});

describe('admin API: signing keys', () => {
  it('announces a new key, signs with it once the announce period is over, and retires the old one once its tokens have expired', async () => {
    let admin = await adminToken(server, 'acme');
    // Access tokens that outlive the announce period, so that old ones are still alive after it.
    expect((await call('PATCH', '/acme/configuration/settings', admin, { access_token_ttl: 3600 })).status).toBe(200);
    // A relying party (openid-client, checking ID token signatures) that has fetched and cached the key set.
    const config = new oidc.Configuration(rp.as as oidc.ServerMetadata, 'web', {}, oidc.ClientSecretBasic(WEB_SECRET));
    oidc.allowInsecureRequests(config);
    oidc.enableNonRepudiationChecks(config);
    const s = await rp.signIn(rp.browser(), { scope: 'openid offline_access' });
    const first = await oidc.authorizationCodeGrant(config, s.callback!, { pkceCodeVerifier: s.verifier, expectedState: s.state, expectedNonce: s.nonce, idTokenExpected: true });
    const before = (await call('GET', '/acme/configuration/jwks/keys', admin)).body.items as Array<{ kid: string; alg: string; status: string }>;
    const oldAccessKid = kid(first.access_token);
    const oldIdKid = kid(first.id_token!);
    expect(before.filter((k) => k.status === 'current').map((k) => k.kid)).toEqual(expect.arrayContaining([oldAccessKid, oldIdKid]));

    const es = await call('POST', '/acme/configuration/jwks/generate', admin, {});
    const rs = await call('POST', '/acme/configuration/jwks/generate', admin, { alg: 'RS256' });
    expect(es.status).toBe(201);
    expect(es.body).toMatchObject({ alg: 'ES256', status: 'announced' });
    expect(rs.body).toMatchObject({ alg: 'RS256', status: 'announced' });
    // Published at once, not signing yet.
    expect(await published()).toEqual(expect.arrayContaining([es.body.kid, rs.body.kid, oldAccessKid, oldIdKid]));
    const still = await oidc.refreshTokenGrant(config, first.refresh_token!);
    expect([kid(still.access_token), kid(still.id_token!)]).toEqual([oldAccessKid, oldIdKid]);

    // Fifteen minutes pass, for the server and for the relying party, whose copy of the key set
    // (fetched before the new keys existed) is now old enough to be fetched again on an unknown kid.
    const cached = oidc.getJwksCache(config)!;
    expect(cached.jwks.keys.map((k) => k.kid)).not.toContain(rs.body.kid);
    passes(901);
    const rotated = await oidc.refreshTokenGrant(config, still.refresh_token!);
    expect([kid(rotated.access_token), kid(rotated.id_token!)]).toEqual([es.body.kid, rs.body.kid]);
    // Tokens of the old keys verify until they expire; the relying party took the new ID token (it fetched the new key).
    expect(await rp.active(still.access_token)).toBe(true);
    expect(await rp.active(rotated.access_token)).toBe(true);
    admin = await adminToken(server, 'acme');
    const during = (await call('GET', '/acme/configuration/jwks/keys', admin)).body.items as Array<{ kid: string; status: string }>;
    expect(during.find((k) => k.kid === oldAccessKid)!.status).toBe('retiring');

    // Two days on, every token of the old keys has expired: they leave the key set.
    passes(2 * 24 * 3600 + 1);
    expect(await published()).not.toContain(oldAccessKid);
    expect(await published()).toContain(es.body.kid);
    await server.app.get(KeyRotation).tick();
    const events = await server.app.get<EventStore>(EVENT_STORE).readStream('signingkeys-acme');
    expect(events.filter((e) => e.type !== 'SigningKeyGenerated').map((e) => [e.type, (e.data as { kid: string }).kid])).toEqual(
      expect.arrayContaining([
        ['SigningKeyActivated', es.body.kid],
        ['SigningKeyActivated', rs.body.kid],
        ['SigningKeyRetired', oldAccessKid],
        ['SigningKeyRetired', oldIdKid],
      ]),
    );
    // Recorded once, however often it ticks.
    const count = events.length;
    await server.app.get(KeyRotation).tick();
    expect(await server.app.get<EventStore>(EVENT_STORE).readStream('signingkeys-acme')).toHaveLength(count);
    // Never a private part.
    admin = await adminToken(server, 'acme');
    const listed = await call('GET', '/acme/configuration/jwks/keys', admin);
    expect(JSON.stringify(listed.body)).not.toMatch(/"d"|encrypted/);
  });
});
