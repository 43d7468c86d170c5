/** The events and commands the session specs start from: a session, its code, redeemed, rotated. */
import { createHash } from 'node:crypto';
import { givenFor } from '../shared/decider-spec.js';
import { refreshTokensOf, type SessionCommand, sessionDecider, type SessionState } from './session.decider.js';

export const verifier = 'a'.repeat(43);
export const challenge = createHash('sha256').update(verifier).digest('base64url');
export const access = (jti: string) => ({ jti, audience: ['https://issuer'], issuedAt: 100, expiresAt: 400, kid: 'k-at', idToken: { kid: 'k-id', expiresAt: 700 } });

export const given = givenFor(sessionDecider);

export const started = given([]).after({ kind: 'StartSession', tenantId: 't', sessionId: 's', userId: 'u', cookieHash: 'h', now: 90 });
export const code = { grantId: 'g', codeHash: 'c', clientId: 'web', redirectUri: 'https://rp/cb', codeChallenge: challenge, codeChallengeMethod: 'S256' as const, scope: ['openid', 'offline_access'], expiresAt: 160 };
export const withCode = given(started).after({ kind: 'IssueCode', code });
export const redeem = (over: Partial<Extract<SessionCommand, { kind: 'RedeemCode' }>> = {}): SessionCommand => ({
  kind: 'RedeemCode',
  codeHash: 'c',
  clientId: 'web',
  redirectUri: 'https://rp/cb',
  codeVerifier: verifier,
  now: 100,
  access: access('at1'),
  refresh: { hash: 'r1', expiresAt: 1000 },
  refreshRule: 'offline_access',
  ...over,
});
export const redeemed = given(withCode).after(redeem());
export const rotate = (from: string, to: string, over: Partial<Extract<SessionCommand, { kind: 'RotateRefresh' }>> = {}): SessionCommand => ({
  kind: 'RotateRefresh',
  refreshHash: from,
  clientId: 'web',
  now: 200,
  access: access(`at-${to}`),
  refresh: { hash: to, expiresAt: 2000 },
  ...over,
});

/** The refresh tokens a state keeps, by hash (the short hashes here are kept whole, led by dots). */
export const kept = (s: SessionState) => refreshTokensOf(s).map((t) => ({ ...t, hash: t.key.replace(/^\.+/, '') }));
