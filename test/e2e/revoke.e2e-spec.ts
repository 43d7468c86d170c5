import * as oauth from 'oauth4webapi';
import { EVENT_STORE, type EventStore } from '../../src/infrastructure/event-store/event-store.port.js';
import { type HistoryEntry, tokenHistory } from '../support/audit.js';
import { endToEnd } from '../support/suite.js';
import { basic, decodeJwt, jsonOf, oauthError, RelyingParty } from '../support/rp.js';
import { type TestServer, WEB_SECRET } from '../support/server.js';

let rp: RelyingParty;
let server: TestServer;
endToEnd((s) => ({ rp, server } = s));

const history = (filter: Record<string, string>) => tokenHistory(server, filter);

describe('revocation', () => {
  it.each([
    ['an unknown token', 'no-such-token'],
    ['a string shaped like a refresh token', `${'A'.repeat(22)}.${'B'.repeat(43)}`],
  ])('answers %s with 200 and an empty body', async (_, token) => {
    const res = await oauth.revocationRequest(rp.as, rp.client('web'), rp.auth('web'), token, rp.options);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.clone().text()).toBe('');
    // An empty answer has no media type; `text/plain` makes strict clients refuse it.
    expect(res.headers.get('content-type')).toBeNull();
    await expect(oauth.processRevocationResponse(res)).resolves.toBeUndefined();
  });

  it('answers the revocation of live access, refresh and client tokens with 200, no body and no Content-Type', async () => {
    const tokens = await rp.tokens();
    const service = await rp.clientCredentials('service');
    for (const [token, clientId] of [[tokens.access_token, 'web'], [tokens.refresh_token!, 'web'], [service.access_token, 'service']]) {
      const res = await oauth.revocationRequest(rp.as, rp.client(clientId), rp.auth(clientId), token, rp.options);
      expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([200, null, '']);
      expect(await rp.active(token)).toBe(false);
    }
  });

  it("refuses another client's live token with 400 invalid_grant, leaves it active, and records the refusal in both clients' histories", async () => {
    const tokens = await rp.tokens();
    const service = await rp.clientCredentials('service');
    const attempts: Array<[string, string]> = [
      [tokens.access_token, 'third'],
      [tokens.refresh_token!, 'third'],
      [service.access_token, 'third'],
      [tokens.refresh_token!, 'spa'],
      [tokens.access_token, 'service'],
    ];
    for (const [token, by] of attempts) {
      expect(await oauthError(rp.revoke(token, by))).toMatchObject({ status: 400, error: 'invalid_grant', description: 'the token was issued to another client', cacheControl: 'no-store' });
    }
    for (const token of [tokens.access_token, tokens.refresh_token!, service.access_token]) expect(await rp.active(token)).toBe(true);
    expect((await rp.refresh('web', tokens.refresh_token!)).access_token).toBeTruthy();
    const { sid } = decodeJwt(tokens.id_token!).payload as { sid: string };
    const refusals = (entries: HistoryEntry[]) => entries.filter((e) => e.type === 'RevocationRefused').map((e) => ({ actor: e.actor, ...e.data }));
    const [jti, serviceJti] = [tokens.access_token, service.access_token].map((t) => decodeJwt(t).payload.jti);
    const byThird = { actor: 'client:third', presentedBy: 'third' };
    expect(refusals(await history({ sessionId: sid }))).toEqual([
      expect.objectContaining({ ...byThird, clientId: 'web', tokenType: 'access_token', jti }),
      expect.objectContaining({ ...byThird, clientId: 'web', tokenType: 'refresh_token', refreshHash: expect.stringContaining('sha256:') }),
      expect.objectContaining({ actor: 'client:spa', presentedBy: 'spa', clientId: 'web', tokenType: 'refresh_token' }),
      expect.objectContaining({ actor: 'client:service', presentedBy: 'service', clientId: 'web', tokenType: 'access_token', jti }),
    ]);
    expect(refusals(await history({ clientId: 'service' }))).toContainEqual(expect.objectContaining({ ...byThird, clientId: 'service', tokenType: 'access_token', jti: serviceJti }));
    // The presenter's history says only whose token it was, and which kind.
    expect(refusals(await history({ clientId: 'third' })).slice(-3)).toEqual([
      { ...byThird, clientId: 'web', tokenType: 'access_token' },
      { ...byThird, clientId: 'web', tokenType: 'refresh_token' },
      { ...byThird, clientId: 'service', tokenType: 'access_token' },
    ]);
  });

  it("records at most ten of one client's refused presentations a minute, answering the others alike", async () => {
    const tokens = await rp.tokens();
    const service = await rp.clientCredentials('service');
    const { sid } = decodeJwt(tokens.id_token!).payload as { sid: string };
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await oauthError(rp.revoke([tokens.refresh_token!, tokens.access_token, service.access_token][i % 3], 'spa')));
    expect(new Set(answers.map((a) => `${a.status} ${a.error} ${a.description}`))).toEqual(new Set(['400 invalid_grant the token was issued to another client']));
    // With those of earlier tests of this file (the same minute), ten in all.
    expect((await history({ clientId: 'spa' })).filter((e) => e.type === 'RevocationRefused' && e.data.presentedBy === 'spa')).toHaveLength(10);
    expect((await history({ sessionId: sid })).filter((e) => e.type === 'RevocationRefused').length).toBeGreaterThanOrEqual(5);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
  });

  it("answers another client's token that has already ended with 200, and records nothing", async () => {
    const tokens = await rp.tokens();
    const service = await rp.clientCredentials('service');
    await rp.revoke(tokens.refresh_token!);
    await rp.revoke(service.access_token, 'service');
    const { sid } = decodeJwt(tokens.id_token!).payload as { sid: string };
    const histories = async () => Promise.all(([{ clientId: 'third' }, { clientId: 'service' }, { sessionId: sid }] as Array<Record<string, string>>).map(async (f) => (await history(f)).length));
    const before = await histories();
    for (const token of [tokens.access_token, tokens.refresh_token!, service.access_token]) await rp.revoke(token, 'third');
    expect(await histories()).toEqual(before);
  });

  it("revoking a refresh token ends its grant: the grant's access tokens become inactive, the browser session and its other grants stay", async () => {
    const browser = rp.browser();
    const tokens = await rp.tokens({}, browser);
    const refreshed = await rp.refresh('web', tokens.refresh_token!);
    const otherGrant = await rp.tokens({}, browser);
    await rp.revoke(refreshed.refresh_token!, 'web', 'refresh_token');
    for (const token of [refreshed.refresh_token!, refreshed.access_token, tokens.access_token]) expect(await rp.active(token)).toBe(false);
    expect(await oauthError(rp.refresh('web', refreshed.refresh_token!))).toMatchObject({ error: 'invalid_grant' });
    expect(await rp.active(otherGrant.access_token)).toBe(true);
    expect(await rp.active(otherGrant.refresh_token!)).toBe(true);
    expect((await rp.signIn(browser, { extra: { prompt: 'none' } })).callback?.searchParams.has('code')).toBe(true);
    // Revoking it again is still a 200.
    await rp.revoke(refreshed.refresh_token!, 'web');
  });

  it('revoking a refresh token with the wrong hint still finds it', async () => {
    const tokens = await rp.tokens();
    await rp.revoke(tokens.refresh_token!, 'web', 'access_token');
    expect(await rp.active(tokens.access_token)).toBe(false);
  });

  it('revoking an access token leaves the refresh token and the session alive', async () => {
    const tokens = await rp.tokens();
    await rp.revoke(tokens.access_token, 'web', 'refresh_token');
    expect(await rp.active(tokens.access_token)).toBe(false);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
    expect(await rp.active((await rp.refresh('web', tokens.refresh_token!)).access_token)).toBe(true);
  });

  it("lets a client revoke its own client_credentials token, leaving the client's other tokens active", async () => {
    const [revoked, kept] = [await rp.clientCredentials('service'), await rp.clientCredentials('service')];
    await rp.revoke(revoked.access_token, 'service');
    expect(await rp.active(revoked.access_token)).toBe(false);
    expect(await rp.active(kept.access_token)).toBe(true);
  });

  it('lets the public client spa revoke its own refresh token with its client_id', async () => {
    const tokens = await rp.tokens({ clientId: 'spa', scope: 'openid offline_access' });
    await rp.revoke(tokens.refresh_token!, 'spa');
    expect(await rp.active(tokens.refresh_token!)).toBe(false);
  });

  it('answers a missing token with 400 invalid_request', async () => {
    const { status, body, headers } = await jsonOf(await rp.post('/revoke', {}, { authorization: basic('web', WEB_SECRET) }));
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it('answers a request without client authentication with 401 invalid_client, and revokes nothing', async () => {
    const tokens = await rp.tokens();
    const { status, body, headers } = await jsonOf(await rp.post('/revoke', { token: tokens.refresh_token! }));
    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
    expect(headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
  });

  it('answers a wrong Basic secret with 401 invalid_client and a Basic challenge, and revokes nothing', async () => {
    const tokens = await rp.tokens();
    const res = await oauth.revocationRequest(rp.as, rp.client('web'), oauth.ClientSecretBasic('wrong'), tokens.refresh_token!, rp.options);
    const e = await oauthError(oauth.processRevocationResponse(res));
    expect(e).toMatchObject({ status: 401, error: 'invalid_client' });
    expect(e.wwwAuthenticate).toMatch(/^Basic/);
    expect(await rp.active(tokens.refresh_token!)).toBe(true);
  });
});

describe('the audit trail of ended tokens', () => {
  it("a replay that ends a session shared by two clients names both grants, and each client's and the subject's history shows it", async () => {
    const browser = rp.browser();
    const web = await rp.tokens({}, browser);
    const spa = await rp.tokens({ clientId: 'spa', scope: 'openid profile offline_access' }, browser);
    const { sid, sub } = decodeJwt(web.id_token!).payload as { sid: string; sub: string };
    await rp.refresh('web', web.refresh_token!);
    await oauthError(rp.refresh('web', web.refresh_token!));
    // A public client cannot introspect: its token is tried at userinfo.
    const userinfo = await oauth.userInfoRequest(rp.as, rp.client('spa'), spa.access_token, rp.options);
    await userinfo.body?.cancel();
    expect(userinfo.status).toBe(401);

    const ofSession = (entries: HistoryEntry[]) => entries.filter((e) => e.data.sessionId === sid);
    const end = ofSession(await history({ sessionId: sid })).at(-1)!;
    expect(end).toMatchObject({ type: 'SessionRevoked', actor: 'client:web', data: { userId: sub, grants: [{ clientId: 'web' }, { clientId: 'spa' }] } });
    for (const clientId of ['web', 'spa']) expect(ofSession(await history({ clientId })).at(-1)!.type).toBe('SessionRevoked');
    // spa's copy names its own grant only, and not the client whose replay ended the session.
    expect(ofSession(await history({ clientId: 'spa' })).at(-1)).toMatchObject({ actor: 'another party', data: { grants: [{ clientId: 'spa' }] } });
    expect(ofSession(await history({ clientId: 'web' })).at(-1)).toMatchObject({ actor: 'client:web', data: { grants: [{ clientId: 'web' }] } });
    const bySubject = ofSession(await history({ sub }));
    expect(bySubject.map((e) => e.type).slice(-2)).toEqual(['RefreshReplayed', 'SessionRevoked']);
    // Revoking a token of the ended session, or replaying its code, records no second end.
    await rp.revoke(spa.access_token, 'spa');
    expect(ofSession(await history({ sessionId: sid })).at(-1)).toEqual(end);
  });

  it('records one end for a token revoked by many parallel requests', async () => {
    const service = await rp.clientCredentials('service');
    const user = await rp.tokens();
    await Promise.all(Array.from({ length: 10 }, () => rp.revoke(service.access_token, 'service')));
    await Promise.all(Array.from({ length: 10 }, () => rp.revoke(user.access_token, 'web')));
    const jtis = [service.access_token, user.access_token].map((t) => decodeJwt(t).payload.jti);
    const ends = (await server.app.get<EventStore>(EVENT_STORE).readAll()).filter((e) => e.type === 'TokenRevoked' && jtis.includes((e.data as { jti?: string }).jti));
    expect(ends).toHaveLength(2);
  });

  it("refuses another client's revocation of a client_credentials token, and records it, only while the token lives, when it meets the owner's", async () => {
    const tokens = await Promise.all(Array.from({ length: 5 }, () => rp.clientCredentials('service')));
    const refused = await Promise.all(
      tokens.map(async (t) => (await Promise.allSettled([rp.revoke(t.access_token, 'service'), rp.revoke(t.access_token, 'web')]))[1].status === 'rejected'),
    );
    const log = await server.app.get<EventStore>(EVENT_STORE).readAll();
    for (const [i, t] of tokens.entries()) {
      const jti = decodeJwt(t.access_token).payload.jti;
      const ends = log.filter((e) => ['TokenRevoked', 'RevocationRefused'].includes(e.type) && (e.data as { jti?: string }).jti === jti).map((e) => e.type);
      expect(ends).toEqual(refused[i] ? ['RevocationRefused', 'TokenRevoked'] : ['TokenRevoked']);
    }
  });

  it('revoking a refresh token names the grant and its client; revoking it again records nothing', async () => {
    const tokens = await rp.tokens({ clientId: 'spa', scope: 'openid profile offline_access' });
    const { sid } = decodeJwt(tokens.id_token!).payload as { sid: string };
    await rp.revoke(tokens.refresh_token!, 'spa');
    await rp.revoke(tokens.refresh_token!, 'spa');
    await rp.revoke(tokens.access_token, 'spa');
    const ends = (await history({ sessionId: sid })).filter((e) => e.type.endsWith('Revoked'));
    expect(ends.map((e) => [e.type, e.data.clientId])).toEqual([
      ['TokenRevoked', 'spa'],
      ['GrantRevoked', 'spa'],
    ]);
  });
});
