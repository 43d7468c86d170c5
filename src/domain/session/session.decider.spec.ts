import { types } from '../shared/decider-spec.js';
import { grantAmr, grantAuthTime, pkceMatches, type SessionCommand, sessionDecider, type SessionState } from './session.decider.js';
import type { SessionEvent } from './session.events.js';
import { access, challenge, code, given, kept, redeem, redeemed, rotate, started, verifier, withCode } from './session.fixtures.js';

describe('session decider', () => {
  it('keeps a plain challenge only in S256 form and checks both methods alike', () => {
    expect(pkceMatches(verifier, challenge)).toBe(true);
    expect(pkceMatches(verifier, verifier)).toBe(false);
    const plain = given(started).after({ kind: 'IssueCode', code: { ...code, codeHash: 'p', codeChallenge: verifier, codeChallengeMethod: 'plain' } });
    const issued = plain.at(-1)!.data as { codeChallenge: string };
    expect(issued.codeChallenge).toBe(challenge);
    expect(JSON.stringify(plain)).not.toContain(verifier);
    expect(types(given(plain).when(redeem({ codeHash: 'p' })))).toEqual(['CodeRedeemed', 'AccessTokenIssued', 'RefreshTokenIssued']);
  });

  it('redeems a code once, with an access token and a refresh token for offline_access', () => {
    expect(types(given(withCode).when(redeem()))).toEqual(['CodeRedeemed', 'AccessTokenIssued', 'RefreshTokenIssued']);
    expect(types(given(withCode).when(redeem({ refreshRule: 'never' })))).toEqual(['CodeRedeemed', 'AccessTokenIssued']);
  });

  it('refuses a code for another client, redirect URI or verifier, recording only the attempt; and after expiry', () => {
    const s = given(withCode);
    expect(s.when(redeem({ clientId: 'other' }))).toEqual([{ type: 'CodeRefused', data: expect.objectContaining({ clientId: 'web', presentedBy: 'other', reason: 'other_client' }) }]);
    expect(s.when(redeem({ redirectUri: 'https://rp/other' }))[0].data).toMatchObject({ reason: 'redirect_uri' });
    expect(s.when(redeem({ codeVerifier: 'b'.repeat(43) }))[0].data).toMatchObject({ reason: 'code_verifier' });
    // Refusals change nothing: the right request still redeems the code.
    expect(types(given([...withCode, ...s.when(redeem({ clientId: 'other' }))]).when(redeem()))).toContain('AccessTokenIssued');
    expect(s.refused(redeem({ now: 160 }))).toBe('code_invalid');
    // Once the code could no longer be redeemed (expired, or its session ended), a refusal is not recorded.
    expect(s.refused(redeem({ clientId: 'other', now: 160 }))).toBe('code_invalid');
    expect(given(given(withCode).after({ kind: 'EndSession', reason: 'logout', now: 100, requestedBy: 'web' })).refused(redeem({ clientId: 'other' }))).toBe('code_invalid');
    const ended = given(redeemed).after({ kind: 'EndSession', reason: 'logout', now: 100, requestedBy: 'web' });
    expect(given(ended).refused(rotate('r1', 'r2', { clientId: 'other' }))).toBe('refresh_invalid');
  });

  it('records no TokenRevoked for an access token whose session or grant has already ended', () => {
    const revokeAccess = { kind: 'RevokeAccessToken' as const, jti: 'j', grantId: 'g', clientId: 'web', owner: 'web' };
    expect(types(given(redeemed).when(revokeAccess))).toEqual(['TokenRevoked']);
    expect(given(given(redeemed).after({ kind: 'EndSession', reason: 'logout', now: 100, requestedBy: 'web' })).when(revokeAccess)).toEqual([]);
    expect(given(given(redeemed).after(redeem())).when(revokeAccess)).toEqual([]);
  });

  it('answers a second redemption by revoking the grant the code produced, once; every replay is recorded', () => {
    expect(types(given(redeemed).when(redeem()))).toEqual(['CodeReplayed', 'GrantRevoked']);
    const replayed = given(redeemed).after(redeem());
    expect(types(given(replayed).when(redeem()))).toEqual(['CodeReplayed']);
    const ended = given(redeemed).after({ kind: 'EndSession', reason: 'logout', now: 100, requestedBy: 'web' });
    expect(types(given(ended).when(redeem()))).toEqual(['CodeReplayed']);
    expect(given(replayed).refused(rotate('r1', 'r2'))).toBe('refresh_invalid');
  });

  it('binds a grant\'s refresh tokens to a DPoP key: another key or none is refused, and cannot end the session by a replay (RFC 9449 §5)', () => {
    const bound = given(withCode).after(redeem({ refreshJkt: 'key-a', access: { ...access('at1'), jkt: 'key-a' } }));
    expect(bound.find((e) => e.type === 'RefreshTokenIssued')!.data).toMatchObject({ jkt: 'key-a' });
    expect(bound.find((e) => e.type === 'AccessTokenIssued')!.data).toMatchObject({ jkt: 'key-a' });
    expect(given(bound).refused(rotate('r1', 'r2', { jkt: 'key-b' }))).toBe('refresh_invalid');
    expect(given(bound).refused(rotate('r1', 'r2'))).toBe('refresh_invalid');
    const rotated = given(bound).after(rotate('r1', 'r2', { jkt: 'key-a' }));
    expect(types(rotated)).toContain('RefreshRotated');
    // The new token is bound too; a replay of the old one without the key ends nothing.
    expect(given(rotated).refused(rotate('r2', 'r3', { jkt: 'key-b' }))).toBe('refresh_invalid');
    expect(given(rotated).refused(rotate('r1', 'r9', { jkt: 'key-b' }))).toBe('refresh_invalid');
    expect(types(given(rotated).when(rotate('r1', 'r9', { jkt: 'key-a' })))).toEqual(['RefreshReplayed', 'SessionRevoked']);
    // An unbound grant takes any key, or none.
    expect(types(given(redeemed).when(rotate('r1', 'r2', { jkt: 'key-b' })))).toContain('RefreshRotated');
  });

  it('keeps the refresh token in use when told to (FAPI 2.0 profiles): used again, it issues again and ends nothing', () => {
    expect(types(given(redeemed).when(rotate('r1', 'r2', { keep: true })))).toEqual(['AccessTokenIssued']);
    const kept1 = given(redeemed).after(rotate('r1', 'r2', { keep: true }));
    expect(types(given(kept1).when(rotate('r1', 'r3', { keep: true, access: access('at-again') })))).toEqual(['AccessTokenIssued']);
    // The token never handed out was never made valid.
    expect(given(kept1).refused(rotate('r2', 'r4', { keep: true }))).toBe('refresh_invalid');
  });

  it('revokes nothing when a used code comes back without its verifier or redirect URI', () => {
    expect(types(given(redeemed).when(redeem({ codeVerifier: 'b'.repeat(43) })))).toEqual(['CodeRefused']);
    expect(types(given(redeemed).when(redeem({ redirectUri: 'https://rp/other' })))).toEqual(['CodeRefused']);
  });

  it("keeps each grant's sign-in for its refreshed ID tokens, not the session's latest (OpenID Connect Core §12.2)", () => {
    const signedInAgain = given(redeemed).after({ kind: 'Reauthenticate', userId: 'u', presentedCookieHash: 'h', cookieHash: 'h-150', now: 150 });
    const rotated = given(signedInAgain).after(rotate('r1', 'r2'));
    const s = given(rotated).state;
    expect(s.authTime).toBe(150);
    expect(grantAuthTime(s, 'g')).toBe(90);
    // Kept through a snapshot.
    expect(grantAuthTime(sessionDecider.snapshot!.decode(JSON.parse(JSON.stringify(sessionDecider.snapshot!.encode(s)))), 'g')).toBe(90);
  });

  it("lists among the grants a session's end concerns those of codes not redeemed yet, while they could be; and names who asked", () => {
    const pending = given(redeemed).after({ kind: 'IssueCode', code: { ...code, grantId: 'g2', codeHash: 'c2', clientId: 'other', expiresAt: 200 } });
    const end = (now: number) => given(pending).when({ kind: 'EndSession', reason: 'logout', now, requestedBy: 'web' })[0].data;
    expect(end(150)).toMatchObject({ grants: [{ grantId: 'g', clientId: 'web' }, { grantId: 'g2', clientId: 'other' }], requestedBy: 'web' });
    expect(end(200)).toMatchObject({ grants: [{ grantId: 'g', clientId: 'web' }] });
  });

  describe('a logout keeps the offline grants of other clients (Back-Channel Logout 1.0 §2.7)', () => {
    const spaCode = { ...code, grantId: 'g2', codeHash: 'c2', clientId: 'spa' };
    const online = { ...code, grantId: 'g3', codeHash: 'c3', clientId: 'spa', scope: ['openid'] };
    const both = [
      ...given(given(redeemed).after({ kind: 'IssueCode', code: spaCode })).after(redeem({ codeHash: 'c2', clientId: 'spa', refresh: { hash: 's1', expiresAt: 1000 }, access: access('at2') })),
    ];
    const withOnline = given(given(both).after({ kind: 'IssueCode', code: online })).after(
      redeem({ codeHash: 'c3', clientId: 'spa', refresh: { hash: 'o1', expiresAt: 1000 }, access: access('at3'), refreshRule: 'always' }),
    );
    const loggedOut = given(withOnline).after({ kind: 'EndSession', reason: 'logout', now: 150, requestedBy: 'web' });

    it("ends the kept grants too when an admin ends the session afterwards (the user disabled or deleted), once", () => {
      const ended = given(loggedOut).after({ kind: 'EndSession', reason: 'admin', now: 160 });
      expect(ended.slice(loggedOut.length)).toEqual([{ type: 'GrantRevoked', data: { tenantId: 't', sessionId: 's', userId: 'u', grantId: 'g2', clientId: 'spa', reason: 'admin' } }]);
      expect(given(ended).refused(rotate('s1', 's2', { clientId: 'spa' }))).toBe('refresh_invalid');
      expect(given(ended).when({ kind: 'EndSession', reason: 'admin', now: 170 })).toEqual([]);
    });

    it("ends the requesting client's grants and the online ones, and keeps the other clients' offline grants", () => {
      expect(loggedOut.at(-1)).toMatchObject({
        type: 'SessionRevoked',
        data: { grants: [{ grantId: 'g', clientId: 'web' }, { grantId: 'g3', clientId: 'spa' }], kept: [{ grantId: 'g2', clientId: 'spa' }], requestedBy: 'web' },
      });
      const after = given(loggedOut);
      expect(types(after.when(rotate('s1', 's2', { clientId: 'spa' })))).toEqual(['RefreshRotated', 'AccessTokenIssued']);
      expect(after.refused(rotate('r1', 'r2'))).toBe('session_revoked');
      expect(after.refused(rotate('o1', 'o2', { clientId: 'spa' }))).toBe('session_revoked');
      // The browser session itself is over.
      expect(after.refused({ kind: 'IssueCode', code: { ...code, grantId: 'g4', codeHash: 'c4' } })).toBe('session_revoked');
      expect(after.when({ kind: 'EndSession', reason: 'logout', now: 160 })).toEqual([]);
    });

    it('keeps them all when the logout names no client, and none when the session ends otherwise', () => {
      const anonymous = given(withOnline).when({ kind: 'EndSession', reason: 'logout', now: 150 })[0].data as { grants: unknown[]; kept: unknown[] };
      expect(anonymous).toMatchObject({ grants: [{ grantId: 'g3' }], kept: [{ grantId: 'g' }, { grantId: 'g2' }] });
      for (const reason of ['admin', 'another_user_signed_in'] as const) {
        expect(given(withOnline).when({ kind: 'EndSession', reason, now: 150 })[0].data).not.toHaveProperty('kept');
      }
    });

    it('ends a kept grant alone when its rotated token is replayed, or it is revoked; its tokens can still be revoked', () => {
      const rotated = given(loggedOut).after(rotate('s1', 's2', { clientId: 'spa' }));
      const replayed = given(rotated).when(rotate('s1', 's3', { clientId: 'spa' }));
      expect(replayed.map((e) => [e.type, (e.data as { reason?: string }).reason])).toEqual([
        ['RefreshReplayed', undefined],
        ['GrantRevoked', 'refresh_replayed'],
      ]);
      const ended = given([...rotated, ...replayed]);
      expect(ended.refused(rotate('s2', 's4', { clientId: 'spa' }))).toBe('refresh_invalid');
      expect(types(ended.when(rotate('s1', 's5', { clientId: 'spa' })))).toEqual(['RefreshReplayed']);
      const revokeAccess = { kind: 'RevokeAccessToken' as const, jti: 'j', grantId: 'g2', clientId: 'spa', owner: 'spa' };
      expect(types(given(rotated).when(revokeAccess))).toEqual(['TokenRevoked']);
      expect(given(rotated).when({ ...revokeAccess, grantId: 'g' })).toEqual([]);
      expect(types(given(rotated).when({ kind: 'RevokeRefreshToken', refreshHash: 's2', clientId: 'spa', now: 300 }))).toEqual(['TokenRevoked', 'GrantRevoked']);
      // And through a snapshot.
      const s = given(rotated).state;
      const restored = sessionDecider.snapshot!.decode(JSON.parse(JSON.stringify(sessionDecider.snapshot!.encode(s))));
      expect(types(given(rotated, restored).when(rotate('s2', 's6', { clientId: 'spa', now: 300 })))).toEqual(['RefreshRotated', 'AccessTokenIssued']);
    });
  });

  it('records every replay of a rotated refresh token, also once a first replay has ended the session; the session ends once', () => {
    const rotated = given(redeemed).after(rotate('r1', 'r2'));
    const replayed = given(rotated).after(rotate('r1', 'r3'));
    expect(types(replayed.slice(rotated.length))).toEqual(['RefreshReplayed', 'SessionRevoked']);
    expect(types(given(replayed).when(rotate('r1', 'r4')))).toEqual(['RefreshReplayed']);
    // The token in use is refused as the session has ended, and records nothing.
    expect(given(replayed).refused(rotate('r2', 'r5'))).toBe('session_revoked');
  });

  it('replaces the session cookies on a sign-in again; one sent alongside (within 10 s) adds its cookie instead', () => {
    const again = (presentedCookieHash: string, now: number): SessionCommand => ({ kind: 'Reauthenticate', userId: 'u', presentedCookieHash, cookieHash: `h-${now}`, now });
    const replaced = given(started).after(again('h', 95));
    expect(replaced.at(-1)!.data).toMatchObject({ authTime: 95, cookieHash: 'h-95' });
    expect(given(replaced).state.cookieHashes).toEqual(['h-95']);
    // Sent alongside (presenting the replaced cookie, within 10 s): both new cookies open the session.
    const alongside = given(replaced).after(again('h', 104));
    expect(alongside.at(-1)!.data).toMatchObject({ cookieHash: 'h-104', cookieAdded: true });
    expect(given(alongside).state.cookieHashes).toEqual(['h-95', 'h-104']);
    // Later, or from a current cookie, a sign-in again replaces them all.
    expect(given(given(replaced).after(again('h', 105))).state.cookieHashes).toEqual(['h-105']);
    expect(given(given(alongside).after(again('h-104', 110))).state.cookieHashes).toEqual(['h-110']);
  });

  it('signs in to the session again when the form that started it is posted again: alongside (within 10 s) its cookie is added', () => {
    const start = (userId: string, now: number): SessionCommand => ({ kind: 'StartSession', tenantId: 't', sessionId: 's', userId, cookieHash: `h-${now}`, now });
    const twice = given(started).after(start('u', 95));
    expect(twice.at(-1)).toEqual({ type: 'UserAuthenticated', data: { tenantId: 't', sessionId: 's', userId: 'u', method: 'pwd', authTime: 95, cookieHash: 'h-95', cookieAdded: true } });
    expect(given(twice).state.cookieHashes).toEqual(['h', 'h-95']);
    expect(given(given(started).after(start('u', 100))).state.cookieHashes).toEqual(['h-100']);
    expect(given(started).refused(start('v', 95))).toBe('already_exists');
    expect(given(given(started).after({ kind: 'EndSession', reason: 'logout', now: 100, requestedBy: 'web' })).refused(start('u', 95))).toBe('session_revoked');
  });

  it('records how each access token was obtained, the key that signs it, and the ID token that goes with it', () => {
    const issued = (events: SessionEvent[]) => events.find((e) => e.type === 'AccessTokenIssued')!.data;
    expect(issued(given(withCode).when(redeem()))).toMatchObject({ grantType: 'authorization_code', jti: 'at1.g', kid: 'k-at', idToken: { kid: 'k-id', expiresAt: 700 } });
    expect(issued(given(redeemed).when(rotate('r1', 'r2')))).toMatchObject({ grantType: 'refresh_token', kid: 'k-at', idToken: { kid: 'k-id', expiresAt: 700 } });
    // No ID token without openid: a refresh that narrows the scope gets none, nor does a code granted without it.
    expect(issued(given(redeemed).when(rotate('r1', 'r2', { scope: ['offline_access'] })))).not.toHaveProperty('idToken');
    const apiOnly = given(started).after({ kind: 'IssueCode', code: { ...code, scope: ['api'] } });
    expect(issued(given(apiOnly).when(redeem({ refreshRule: 'never' })))).not.toHaveProperty('idToken');
  });

  it('rotates a refresh token and revokes the session when a rotated one returns', () => {
    const rotated = given(redeemed).after(rotate('r1', 'r2'));
    expect(types(rotated.slice(-2))).toEqual(['RefreshRotated', 'AccessTokenIssued']);
    expect(types(given(rotated).when(rotate('r1', 'r3')))).toEqual(['RefreshReplayed', 'SessionRevoked']);
    const revoked = given(rotated).after(rotate('r1', 'r3'));
    expect(given(revoked).refused(rotate('r2', 'r4'))).toBe('session_revoked');
  });

  it('after a thousand rotations rotates the newest token and still knows the first as rotated', () => {
    let events = redeemed;
    for (let i = 1; i <= 1000; i++) events = given(events).after(rotate(`r${i}`, `r${i + 1}`));
    const s = given(events);
    expect(types(s.when(rotate('r1001', 'r1002')))).toEqual(['RefreshRotated', 'AccessTokenIssued']);
    expect(types(s.when(rotate('r1', 'x')))).toEqual(['RefreshReplayed', 'SessionRevoked']);
    expect(types(s.when({ kind: 'RevokeRefreshToken', refreshHash: 'r500', clientId: 'web', now: 200 }))).toEqual(['TokenRevoked', 'GrantRevoked']);
    expect(s.refused(rotate('unknown', 'x'))).toBe('refresh_invalid');
    // A rotated token revoked by itself is refused as revoked from then on; the others are still replays.
    const revoked = given(given(events).after({ kind: 'RevokeRefreshToken', refreshHash: 'r500', clientId: 'web', now: 200 }));
    expect(revoked.refused(rotate('r500', 'x'))).toBe('refresh_invalid');
    expect(types(revoked.when(rotate('r499', 'x')))).toEqual(['RefreshReplayed', 'SessionRevoked']);
    expect(kept(revoked.state).filter((t) => t.status === 'revoked').map((t) => t.hash)).toEqual(['r500']);
  });

  it('does not let another client revoke the session with a stolen rotated token', () => {
    const rotated = given(redeemed).after(rotate('r1', 'r2'));
    expect(given(rotated).when(rotate('r1', 'r3', { clientId: 'other' }))).toEqual([
      { type: 'RefreshRefused', data: expect.objectContaining({ clientId: 'web', presentedBy: 'other', reason: 'other_client' }) },
    ]);
  });

  it("refuses, and records, another client's revocation of a live token; a dead token's is accepted and records nothing", () => {
    const refreshByOther = { kind: 'RevokeRefreshToken' as const, refreshHash: 'r1', clientId: 'other', now: 200 };
    const accessByOther = { kind: 'RevokeAccessToken' as const, jti: 'j', grantId: 'g', clientId: 'other', owner: 'web' };
    const refused = [...given(redeemed).when(refreshByOther), ...given(redeemed).when(accessByOther)];
    expect(refused).toEqual([
      { type: 'RevocationRefused', data: { tenantId: 't', sessionId: 's', userId: 'u', grantId: 'g', clientId: 'web', presentedBy: 'other', tokenType: 'refresh_token', refreshHash: 'r1' } },
      { type: 'RevocationRefused', data: { tenantId: 't', sessionId: 's', userId: 'u', grantId: 'g', clientId: 'web', presentedBy: 'other', tokenType: 'access_token', jti: 'j' } },
    ]);
    // Refusals change nothing: the owner still revokes.
    expect(types(given([...redeemed, ...refused]).when({ ...refreshByOther, clientId: 'web' }))).toEqual(['TokenRevoked', 'GrantRevoked']);
    // Unrecorded, a refusal is only an error of the same words; so are those of codes and refresh tokens.
    for (const c of [refreshByOther, accessByOther]) expect(given(redeemed).refused({ ...c, unrecorded: true })).toBe('refresh_invalid');
    expect(given(redeemed).refused(rotate('r1', 'r2', { clientId: 'other', unrecorded: true }))).toBe('refresh_invalid');
    expect(given(withCode).refused(redeem({ clientId: 'other', unrecorded: true }))).toBe('code_invalid');
    // Once the token could no longer be used (expired, its grant or session ended), it is accepted.
    expect(given(redeemed).when({ ...refreshByOther, now: 1000 })).toEqual([]);
    const revoked = given(given(redeemed).after({ kind: 'RevokeRefreshToken', refreshHash: 'r1', clientId: 'web', now: 200 }));
    expect([...revoked.when(refreshByOther), ...revoked.when(accessByOther)]).toEqual([]);
    const ended = given(given(redeemed).after({ kind: 'EndSession', reason: 'logout', now: 100, requestedBy: 'web' }));
    expect([...ended.when(refreshByOther), ...ended.when(accessByOther)]).toEqual([]);
  });

  it('never widens scope on refresh and refuses expired refresh tokens', () => {
    expect(given(redeemed).refused(rotate('r1', 'r2', { scope: ['openid', 'email'] }))).toBe('invalid_value');
    expect(given(redeemed).when(rotate('r1', 'r2', { scope: ['openid'] }))[1].data).toMatchObject({ scope: ['openid'] });
    expect(given(redeemed).refused(rotate('r1', 'r2', { now: 1000 }))).toBe('refresh_invalid');
  });

  it('counts the last sign-in, or the last code issued since, as the session\'s last use', () => {
    expect(given(started).state.activeAt).toBe(90);
    const issued = given(started).after({ kind: 'IssueCode', code: { ...code, issuedAt: 130 } });
    expect(given(issued).state.activeAt).toBe(130);
    // A code recorded before codes said when they were issued was issued CODE_TTL_SECONDS before it expires.
    expect(given(given(started).after({ kind: 'IssueCode', code: { ...code, expiresAt: 200 } })).state.activeAt).toBe(140);
    const again = given(issued).after({ kind: 'Reauthenticate', userId: 'u', presentedCookieHash: 'h', cookieHash: 'h2', now: 150 });
    expect(given(again).state).toMatchObject({ authTime: 150, activeAt: 150 });
  });

  it('ends a session once', () => {
    const ended = given(redeemed).after({ kind: 'EndSession', reason: 'logout', now: 100, requestedBy: 'web' });
    expect(types(ended.slice(-1))).toEqual(['SessionRevoked']);
    expect(given(ended).when({ kind: 'EndSession', reason: 'logout', now: 100, requestedBy: 'web' })).toEqual([]);
    expect(given(ended).refused({ kind: 'IssueCode', code: {} as never })).toBe('session_revoked');
  });

  it('folds the same state from the same events', () => {
    const a: SessionState = given(redeemed).state;
    expect(given(redeemed).state).toEqual(a);
  });
  it('keeps the sign-in\'s amr beyond the password, gives it to the codes issued after, and forgets it at a password-only sign-in', () => {
    const mfa = given([]).after({ kind: 'StartSession', tenantId: 't', sessionId: 's', userId: 'u', cookieHash: 'h', now: 90, amr: ['pwd', 'otp', 'mfa'] });
    expect(mfa.at(-1)!.data).toMatchObject({ method: 'pwd', amr: ['pwd', 'otp', 'mfa'] });
    const issued = given(mfa).when({ kind: 'IssueCode', code });
    expect(issued[0].data).toMatchObject({ authTime: 90, amr: ['pwd', 'otp', 'mfa'] });
    const again = given(mfa).after({ kind: 'Reauthenticate', userId: 'u', presentedCookieHash: 'h', cookieHash: 'h2', now: 150 });
    expect(given(again).state.amr).toBeUndefined();
    expect(given(again).when({ kind: 'IssueCode', code })[0].data).not.toHaveProperty('amr');
    expect(given(started).state.amr).toBeUndefined();
  });

  it('keeps each grant\'s sign-in (auth_time and amr) for its refreshes, whatever the session proves after (OpenID Connect Core §12.2)', () => {
    const mfa = given([]).after({ kind: 'StartSession', tenantId: 't', sessionId: 's', userId: 'u', cookieHash: 'h', now: 90, amr: ['pwd', 'otp', 'mfa'] });
    const granted = given(given(mfa).after({ kind: 'IssueCode', code })).after(redeem());
    // A password-only sign-in again, then a second grant on it.
    const again = given(granted).after({ kind: 'Reauthenticate', userId: 'u', presentedCookieHash: 'h', cookieHash: 'h2', now: 150 });
    const second = given(given(again).after({ kind: 'IssueCode', code: { ...code, grantId: 'g2', codeHash: 'c2', expiresAt: 250 } })).after(redeem({ codeHash: 'c2', now: 160, refresh: { hash: 'r2', expiresAt: 1000 } }));
    const rotated = given(second).after(rotate('r1', 'r3'));
    const state = given(rotated).state;
    expect([grantAuthTime(state, 'g'), grantAmr(state, 'g')]).toEqual([90, ['pwd', 'otp', 'mfa']]);
    expect([grantAuthTime(state, 'g2'), grantAmr(state, 'g2')]).toEqual([150, undefined]);
    // Saved and read back, a snapshot keeps them.
    const codec = sessionDecider.snapshot!;
    expect(grantAmr(codec.decode(JSON.parse(JSON.stringify(codec.encode(state)))), 'g')).toEqual(['pwd', 'otp', 'mfa']);
  });
});
