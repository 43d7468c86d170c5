import { createHash } from 'node:crypto';
import { DomainError } from '../shared/domain-error.js';
import { merged } from '../shared/merged.js';
import type { AccessTokenSpec, RefreshRule, SessionCommand } from './session.commands.js';
import { type AccessTokenIssued, type CodeRefused, grantTokenId, type SessionEvent } from './session.events.js';
import { resourceToken } from './resource-target.js';
import { ALONGSIDE_SECONDS, findCode, findRefresh, grantLive, liveGrants, offlineGrantsOfOthers, replacedJustNow, type SessionState } from './session.state.js';

type Command<K extends SessionCommand['kind']> = Extract<SessionCommand, { kind: K }>;

/** One decide function per command kind: each turns its command and the state into events, or throws a DomainError. */
export type Decisions = { [K in SessionCommand['kind']]: (c: Command<K>, s: SessionState) => SessionEvent[] };

const idsOf = (s: SessionState) => ({ tenantId: s.tenantId, sessionId: s.sessionId, userId: s.userId });

/**
 * The `AccessTokenIssued` of a user grant: the token, and its ID token when `openid` is granted (OIDC Core §3.1.3.3).
 * `resource`: the token is for that resource (RFC 8707), its audience and scope; the ID token still follows the grant's scope.
 */
function userAccessToken(
  grant: { tenantId: string; sessionId: string; userId: string; grantId: string; clientId: string },
  grantType: 'authorization_code' | 'refresh_token',
  spec: AccessTokenSpec,
  granted: string[],
  resource?: { identifier: string; scope: string[] },
): AccessTokenIssued {
  const { jti, issuedAt, expiresAt, kid, idToken } = spec;
  const scope = resource?.scope ?? granted;
  const audience = resource ? [resource.identifier] : spec.audience;
  const data: AccessTokenIssued['data'] = merged(grant, { grantType, jti: grantTokenId(jti, grant.grantId), sub: grant.userId, scope, audience, issuedAt, expiresAt, kid });
  if (granted.includes('openid')) data.idToken = idToken;
  if (spec.jkt) data.jkt = spec.jkt;
  return { type: 'AccessTokenIssued', data };
}

function earnsRefresh(rule: RefreshRule, scope: readonly string[]): boolean {
  return rule === 'always' || (rule === 'offline_access' && (scope.includes('offline_access') || !scope.includes('openid')));
}

/** RFC 7636 §4.2: BASE64URL(SHA256(value)). */
export function s256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** RFC 7636 §4.6 against a challenge kept in S256 form (see CodeIssued): the same check for both methods. */
export function pkceMatches(verifier: string, s256Challenge: string): boolean {
  return s256(verifier) === s256Challenge;
}

/** What a refused code is answered with. */
export const REFUSAL: Record<CodeRefused['data']['reason'], string> = {
  other_client: 'the code was issued to another client',
  redirect_uri: 'redirect_uri does not match the authorization request',
  code_verifier: 'code_verifier does not match the code_challenge',
};
/** What a refresh token presented by another client is answered with. */
export const REFRESH_REFUSAL = 'the refresh token was issued to another client';
/** What a revocation of another client's live token is answered with (RFC 7009 §2.1). */
export const REVOCATION_REFUSAL = 'the token was issued to another client';

function requireLive(state: SessionState, code: 'code_invalid' | 'refresh_invalid'): void {
  if (!state.started) throw new DomainError(code, 'unknown session');
  if (state.revoked) throw new DomainError('session_revoked', 'the session has ended');
}

/** MFA: the sign-in's methods beyond the password, when there are any (RFC 8176). */
const amrOf = (c: { amr?: string[] }) => (c.amr && c.amr.some((m) => m !== 'pwd') ? { amr: c.amr } : {});

/** A sign-in that opens the session, or signs in to it again when its form is posted again. */
function startSession(c: Command<'StartSession'>, s: SessionState): SessionEvent[] {
  const ids = idsOf(s);
  if (s.started) {
    // The same sign-in form posted again (a new session's id derives from the pending
    // request and the user): the session it started is signed in to again, its cookie
    // added when posted alongside, so that whichever answer the browser keeps works.
    requireLive(s, 'code_invalid');
    if (c.userId !== s.userId) throw new DomainError('already_exists', 'session exists');
    const alongside = c.now - s.authTime < ALONGSIDE_SECONDS;
    return [{ type: 'UserAuthenticated', data: { ...ids, method: 'pwd', authTime: c.now, cookieHash: c.cookieHash, ...(alongside ? { cookieAdded: true as const } : {}), ...amrOf(c) } }];
  }
  return [
    { type: 'SessionStarted', data: { tenantId: c.tenantId, sessionId: c.sessionId, userId: c.userId, cookieHash: c.cookieHash, authTime: c.now } },
    { type: 'UserAuthenticated', data: { tenantId: c.tenantId, sessionId: c.sessionId, userId: c.userId, method: 'pwd', authTime: c.now, ...amrOf(c) } },
  ];
}

/** A sign-in again to the session the browser holds. */
function reauthenticate(c: Command<'Reauthenticate'>, s: SessionState): SessionEvent[] {
  const ids = idsOf(s);
  requireLive(s, 'code_invalid');
  if (c.userId !== s.userId) throw new DomainError('invalid_value', 'another user is signed in to this session');
  // A sign-in sent alongside the one that just replaced the cookies adds its cookie to the
  // new ones: whichever answer the browser keeps opens the session. Any other replaces them all.
  return [
    {
      type: 'UserAuthenticated',
      data: { ...ids, method: 'pwd', authTime: c.now, cookieHash: c.cookieHash, ...(replacedJustNow(s, c.presentedCookieHash, c.now) ? { cookieAdded: true as const } : {}), ...amrOf(c) },
    },
  ];
}

/** A code for a grant of the live session (its challenge kept in S256 form). */
function issueCode(c: Command<'IssueCode'>, s: SessionState): SessionEvent[] {
  const ids = idsOf(s);
  requireLive(s, 'code_invalid');
  return [
    {
      type: 'CodeIssued',
      data: Object.assign({}, ids, c.code, {
        codeChallenge: c.code.codeChallengeMethod === 'plain' ? s256(c.code.codeChallenge) : c.code.codeChallenge,
        authTime: s.authTime,
        ...(s.amr ? { amr: s.amr } : {}),
      }),
    },
  ];
}

/** A code for its tokens (RFC 6749 §4.1.3), once; a replay revokes what the code produced. */
function redeemCode(c: Command<'RedeemCode'>, s: SessionState): SessionEvent[] {
  const ids = idsOf(s);
  const code = findCode(s, c.codeHash);
  if (!code) throw new DomainError('code_invalid', 'unknown authorization code');
  // A code in the wrong hands is refused, and the attempt recorded while the code could
  // still have been redeemed (the handler answers invalid_grant); a dead one is only refused.
  const refused = (reason: CodeRefused['data']['reason']): SessionEvent[] => {
    if (!s.started || s.revoked || c.now >= code.expiresAt || c.unrecorded) throw new DomainError('code_invalid', REFUSAL[reason]);
    return [{ type: 'CodeRefused', data: { ...ids, grantId: code.grantId, codeHash: c.codeHash, clientId: code.clientId, presentedBy: c.clientId, reason } }];
  };
  if (code.clientId !== c.clientId) return refused('other_client');
  // Checked before the replay below, so that only a request that could have redeemed the
  // code revokes what it produced: a used code alone (from a log, say) cannot.
  // RFC 6749 §4.1.3: required when the authorization request carried it, and then identical.
  if (c.redirectUri === undefined && !code.redirectUriOmitted) throw new DomainError('invalid_value', 'redirect_uri is required: the authorization request carried one');
  if (c.redirectUri !== undefined && c.redirectUri !== code.redirectUri) return refused('redirect_uri');
  if (!pkceMatches(c.codeVerifier, code.codeChallenge)) return refused('code_verifier');
  // RFC 9449 §10: a code bound by `dpop_jkt` is redeemed only with a proof of that key; checked
  // before a replay revokes anything, so that without the key the code is worth nothing.
  if (code.dpopJkt !== undefined && c.access.jkt !== code.dpopJkt) throw new DomainError('code_invalid', 'the code is bound to another DPoP key (dpop_jkt)');
  if (code.redeemed) {
    // RFC 6749 §4.1.2: a code used twice is refused, and what it produced is revoked. The
    // replay is recorded even when the grant has already ended; its end is recorded once.
    const replayed = { type: 'CodeReplayed' as const, data: { ...ids, grantId: code.grantId, codeHash: c.codeHash, clientId: c.clientId } };
    if (!grantLive(s, code.grantId)) return [replayed];
    return [replayed, { type: 'GrantRevoked', data: { ...ids, grantId: code.grantId, clientId: code.clientId, reason: 'code_replayed' } }];
  }
  requireLive(s, 'code_invalid');
  if (c.now >= code.expiresAt) throw new DomainError('code_invalid', 'the code has expired');
  const resource = resourceToken(code.resource, c.target, code.scope);
  const grant = merged(ids, { grantId: code.grantId, clientId: c.clientId });
  return [
    { type: 'CodeRedeemed', data: merged(ids, { grantId: code.grantId, codeHash: c.codeHash, clientId: c.clientId }) },
    userAccessToken(grant, 'authorization_code', c.access, code.scope, resource),
    ...(earnsRefresh(c.refreshRule, code.scope)
      ? [{ type: 'RefreshTokenIssued' as const, data: withResource(withJkt(merged(grant, { refreshHash: c.refresh.hash, scope: code.scope, issuedAt: c.now, expiresAt: c.refresh.expiresAt }), c.refreshJkt), code.resource) }]
      : []),
  ];
}

/** The data of a RefreshTokenIssued, bound to a DPoP key when one is given. */
function withJkt<T extends object>(data: T, jkt: string | undefined): T & { jkt?: string } {
  return jkt ? { ...data, jkt } : data;
}

/** The data of a RefreshTokenIssued, for the resource its grant was made for, if any (RFC 8707 §2.2). */
function withResource<T extends object>(data: T, resource: string | undefined): T & { resource?: string } {
  return resource !== undefined ? { ...data, resource } : data;
}

/** A refresh token for the next one; a rotated one presented again ends the session. */
function rotateRefresh(c: Command<'RotateRefresh'>, s: SessionState): SessionEvent[] {
  const ids = idsOf(s);
  const rt = findRefresh(s, c.refreshHash);
  if (!rt) throw new DomainError('refresh_invalid', 'unknown refresh token');
  if (rt.clientId !== c.clientId) {
    // Refused, and recorded while the token could still have been used; a thief cannot
    // end the victim's session with it.
    if (!grantLive(s, rt.grantId) || c.now >= rt.expiresAt || c.unrecorded) throw new DomainError('refresh_invalid', REFRESH_REFUSAL);
    return [{ type: 'RefreshRefused', data: { ...ids, grantId: rt.grantId, refreshHash: c.refreshHash, clientId: rt.clientId, presentedBy: c.clientId, reason: 'other_client' } }];
  }
  if (!s.started) throw new DomainError('refresh_invalid', 'unknown session');
  // RFC 9449 §5: a bound refresh token is used only with a proof of its key. Checked before a
  // replay ends the session: without the key, a leaked token cannot end it either.
  if (rt.jkt !== undefined && c.jkt !== rt.jkt) throw new DomainError('refresh_invalid', 'the refresh token is bound to another DPoP key');
  // Past its own expiry a token is refused whatever its status: a rotated one could not
  // have been used anyway, so it no longer ends the session (and compact forgets it).
  if (c.now >= rt.expiresAt) throw new DomainError('refresh_invalid', 'the refresh token has expired');
  if (rt.status === 'rotated') {
    // Recorded even once the session has ended (by the first replay of several sent at
    // once, say), as a sign that the token leaked; the session ends once.
    const replayed = { type: 'RefreshReplayed' as const, data: { ...ids, grantId: rt.grantId, refreshHash: c.refreshHash, clientId: c.clientId } };
    if (!s.revoked) return [replayed, { type: 'SessionRevoked', data: { ...ids, grants: liveGrants(s, c.now), reason: 'refresh_replayed' } }];
    // A grant kept past the session's end ends alone: the rest of the session already has.
    if (!grantLive(s, rt.grantId)) return [replayed];
    return [replayed, { type: 'GrantRevoked', data: { ...ids, grantId: rt.grantId, clientId: rt.clientId, reason: 'refresh_replayed' } }];
  }
  if (s.revoked && !s.keptGrants.includes(rt.grantId)) throw new DomainError('session_revoked', 'the session has ended');
  if (rt.status === 'revoked' || s.revokedGrants.includes(rt.grantId)) throw new DomainError('refresh_invalid', 'the refresh token was revoked');
  const scope = c.scope ?? rt.scope;
  if (scope.some((x) => !rt.scope.includes(x))) throw new DomainError('invalid_value', 'scope exceeds the original grant');
  const resource = resourceToken(rt.resource, c.target, scope);
  const grant = merged(ids, { grantId: rt.grantId, clientId: c.clientId });
  // FAPI 2.0 Security Profile §5.3.2.1: no rotation; the token stays valid until it expires.
  if (c.keep) return [userAccessToken(grant, 'refresh_token', c.access, scope)];
  return [
    { type: 'RefreshRotated', data: merged(grant, { fromHash: c.refreshHash, toHash: c.refresh.hash, scope: rt.scope, issuedAt: c.now, expiresAt: c.refresh.expiresAt }) },
    userAccessToken(grant, 'refresh_token', c.access, scope, resource),
  ];
}

/** An access token revoked by the client it was issued to (RFC 7009 §2.1). */
function revokeAccessToken(c: Command<'RevokeAccessToken'>, s: SessionState): SessionEvent[] {
  const ids = idsOf(s);
  // A token that has already ended with its session or grant ends only once.
  if (!s.started || (c.grantId !== undefined ? !grantLive(s, c.grantId) : s.revoked)) return [];
  if (c.owner !== c.clientId) {
    if (c.unrecorded) throw new DomainError('refresh_invalid', REVOCATION_REFUSAL);
    return [{ type: 'RevocationRefused', data: { ...ids, grantId: c.grantId, clientId: c.owner, presentedBy: c.clientId, tokenType: 'access_token', jti: c.jti } }];
  }
  return [{ type: 'TokenRevoked', data: { ...ids, grantId: c.grantId, clientId: c.clientId, tokenType: 'access_token', jti: c.jti, reason: 'revocation_request' } }];
}

/** A refresh token revoked by the client it was issued to, and its grant with it (RFC 7009 §2.1). */
function revokeRefreshToken(c: Command<'RevokeRefreshToken'>, s: SessionState): SessionEvent[] {
  const ids = idsOf(s);
  const rt = findRefresh(s, c.refreshHash);
  // RFC 7009 §2.2: a token already invalid (expired included) is silently accepted.
  if (!rt || !grantLive(s, rt.grantId) || c.now >= rt.expiresAt) return [];
  if (rt.clientId !== c.clientId) {
    if (c.unrecorded) throw new DomainError('refresh_invalid', REVOCATION_REFUSAL);
    return [{ type: 'RevocationRefused', data: { ...ids, grantId: rt.grantId, clientId: rt.clientId, presentedBy: c.clientId, tokenType: 'refresh_token', refreshHash: c.refreshHash } }];
  }
  // RFC 7009 §2.1: with it go the tokens of the same grant; the browser session and the
  // grants of other clients (or other sign-ins) in it are not the client's to end.
  return [
    { type: 'TokenRevoked', data: { ...ids, grantId: rt.grantId, clientId: c.clientId, tokenType: 'refresh_token', refreshHash: c.refreshHash, reason: 'revocation_request' } },
    { type: 'GrantRevoked', data: { ...ids, grantId: rt.grantId, clientId: rt.clientId, reason: 'refresh_revoked' } },
  ];
}

/** The session ends (logout, admin, another user): the grants it concerns are listed. */
function endSession(c: Command<'EndSession'>, s: SessionState): SessionEvent[] {
  const ids = idsOf(s);
  if (!s.started) return [];
  if (s.revoked) {
    // An admin's end (the user disabled or deleted) also ends the grants a logout kept.
    if (c.reason !== 'admin') return [];
    return liveGrants(s, c.now)
      .filter((g) => s.keptGrants.includes(g.grantId))
      .map((g) => ({ type: 'GrantRevoked' as const, data: { ...ids, grantId: g.grantId, clientId: g.clientId, reason: 'admin' as const } }));
  }
  const grants = liveGrants(s, c.now);
  const kept = c.reason === 'logout' ? offlineGrantsOfOthers(s, grants, c.requestedBy, c.now) : [];
  const ended = kept.length ? grants.filter((g) => !kept.includes(g)) : grants;
  return [{ type: 'SessionRevoked', data: { ...ids, grants: ended, reason: c.reason, ...(c.requestedBy ? { requestedBy: c.requestedBy } : {}), ...(kept.length ? { kept } : {}) } }];
}

/** Each command's decision, in the order of a session's life. */
export const decisions: Decisions = {
  StartSession: startSession,
  Reauthenticate: reauthenticate,
  IssueCode: issueCode,
  RedeemCode: redeemCode,
  RotateRefresh: rotateRefresh,
  RevokeAccessToken: revokeAccessToken,
  RevokeRefreshToken: revokeRefreshToken,
  EndSession: endSession,
};
