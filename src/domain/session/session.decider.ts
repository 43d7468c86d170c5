import { createHash } from 'node:crypto';
import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import { type AccessTokenIssued, type CodeIssued, type CodeRefused, grantTokenId, type SessionEndReason, type SessionEvent } from './session.events.js';

/** A new access token, described by the handler (ids, keys and times come in, never made here). */
export interface AccessTokenSpec {
  jti: string;
  audience: string[];
  issuedAt: number;
  expiresAt: number;
  /** The key that will sign it. */
  kid: string;
  /** The ID token that goes with it when the token's scope has `openid`. */
  idToken: { kid: string; expiresAt: number };
}

/** The `AccessTokenIssued` of a user grant: the token, and its ID token when `openid` is granted (OIDC Core §3.1.3.3). */
function userAccessToken(
  grant: { tenantId: string; sessionId: string; userId: string; grantId: string; clientId: string },
  grantType: 'authorization_code' | 'refresh_token',
  spec: AccessTokenSpec,
  scope: string[],
): AccessTokenIssued {
  const { jti, idToken, ...token } = spec;
  return {
    type: 'AccessTokenIssued',
    data: { ...grant, grantType, jti: grantTokenId(jti, grant.grantId), sub: grant.userId, scope, ...token, ...(scope.includes('openid') ? { idToken } : {}) },
  };
}

export interface RefreshSpec {
  hash: string;
  expiresAt: number;
}

/**
 * When a code earns a refresh token (the rule is documented in the README): `never` when the
 * client may not use the grant; `offline_access` when OpenID requests need that scope; `always`.
 */
export type RefreshRule = 'never' | 'offline_access' | 'always';

function earnsRefresh(rule: RefreshRule, scope: readonly string[]): boolean {
  return rule === 'always' || (rule === 'offline_access' && (scope.includes('offline_access') || !scope.includes('openid')));
}

export type SessionCommand =
  | { kind: 'StartSession'; tenantId: string; sessionId: string; userId: string; cookieHash: string; now: number }
  | { kind: 'Reauthenticate'; userId: string; presentedCookieHash: string; cookieHash: string; now: number }
  | { kind: 'IssueCode'; code: Omit<CodeIssued['data'], 'tenantId' | 'sessionId' | 'userId' | 'authTime'> }
  | { kind: 'RedeemCode'; codeHash: string; clientId: string; redirectUri: string | undefined; codeVerifier: string; now: number; access: AccessTokenSpec; refresh: RefreshSpec; refreshRule: RefreshRule }
  | { kind: 'RotateRefresh'; refreshHash: string; clientId: string; scope?: string[]; now: number; access: AccessTokenSpec; refresh: RefreshSpec }
  | { kind: 'RevokeAccessToken'; jti: string; grantId?: string; clientId: string }
  | { kind: 'RevokeRefreshToken'; refreshHash: string; clientId: string; now: number }
  | { kind: 'EndSession'; reason: SessionEndReason };

export interface CodeState extends Omit<CodeIssued['data'], 'tenantId' | 'sessionId'> {
  redeemed: boolean;
}

interface RefreshState {
  hash: string;
  grantId: string;
  clientId: string;
  scope: string[];
  expiresAt: number;
  status: 'active' | 'rotated' | 'revoked';
}

/**
 * A persistent list, newest first: adding an item copies nothing, so a session that has
 * rotated its refresh token thousands of times folds each new event in constant time.
 */
export interface Chain<T> {
  readonly item: T;
  readonly next: Chain<T> | null;
}

function findIn<T>(chain: Chain<T> | null, match: (item: T) => boolean): T | undefined {
  for (let link = chain; link; link = link.next) if (match(link.item)) return link.item;
  return undefined;
}

function chainToArray<T>(chain: Chain<T> | null): T[] {
  const items: T[] = [];
  for (let link = chain; link; link = link.next) items.push(link.item);
  return items;
}

function arrayToChain<T>(items: readonly T[]): Chain<T> | null {
  let chain: Chain<T> | null = null;
  for (let i = items.length - 1; i >= 0; i--) chain = { item: items[i], next: chain };
  return chain;
}

export interface SessionState {
  started: boolean;
  tenantId: string;
  sessionId: string;
  userId: string;
  /** The cookies that open the session: the last sign-in's, and those of sign-ins sent alongside it. */
  cookieHashes: readonly string[];
  /** The cookies the last sign-in again replaced, and when: a sign-in sent alongside it still presents one. */
  replacedCookieHashes: readonly string[];
  cookieReplacedAt: number;
  authTime: number;
  revoked: boolean;
  /** Codes not redeemed yet, oldest first. */
  codes: readonly CodeState[];
  /** Redeemed codes, newest first. */
  redeemedCodes: Chain<CodeState> | null;
  /**
   * Every change of a refresh token's status, newest first: a token's first entry is its status
   * now. Compacted as it grows (see compact): each token once, the expired ones gone.
   */
  refresh: Chain<RefreshState> | null;
  /** Links in `refresh`, and how many were left by its last compaction. */
  refreshLinks: number;
  refreshCompacted: number;
  revokedGrants: string[];
}

const initialState: SessionState = {
  started: false,
  tenantId: '',
  sessionId: '',
  userId: '',
  cookieHashes: [],
  replacedCookieHashes: [],
  cookieReplacedAt: 0,
  authTime: 0,
  revoked: false,
  codes: [],
  redeemedCodes: null,
  refresh: null,
  refreshLinks: 0,
  refreshCompacted: 0,
  revokedGrants: [],
};

/** RFC 7636 §4.2: BASE64URL(SHA256(value)). */
export function s256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** RFC 7636 §4.6 against a challenge kept in S256 form (see CodeIssued): the same check for both methods. */
export function pkceMatches(verifier: string, s256Challenge: string): boolean {
  return s256(verifier) === s256Challenge;
}

export function findCode(s: SessionState, codeHash: string): CodeState | undefined {
  return s.codes.find((c) => c.codeHash === codeHash) ?? findIn(s.redeemedCodes, (c) => c.codeHash === codeHash);
}

/** A refresh token of the session as it is now: active, rotated or revoked. */
function findRefresh(s: SessionState, hash: string): RefreshState | undefined {
  return findIn(s.refresh, (r) => r.hash === hash);
}

/** The refresh token `hash`, if the session knows it, now with `status`. */
function withStatus(s: SessionState, hash: string | undefined, status: RefreshState['status']): Pick<SessionState, 'refresh' | 'refreshLinks'> {
  const found = hash === undefined ? undefined : findRefresh(s, hash);
  return found ? { refresh: { item: { ...found, status }, next: s.refresh }, refreshLinks: s.refreshLinks + 1 } : { refresh: s.refresh, refreshLinks: s.refreshLinks };
}

/** How long after a sign-in again another one from the same browser counts as sent alongside it. */
const ALONGSIDE_SECONDS = 10;

/**
 * Whether a browser presenting one of the cookies the last sign-in again replaced sent its
 * request alongside that sign-in (a form submitted twice, two tabs): within ALONGSIDE_SECONDS.
 */
export function replacedJustNow(s: SessionState, cookieHash: string, now: number): boolean {
  return s.replacedCookieHashes.includes(cookieHash) && now - s.cookieReplacedAt < ALONGSIDE_SECONDS;
}

/**
 * How long past its expiry a token stays in the list: a command's time is taken before it
 * waits for its turn (or on another server's clock), so it may lag behind the event that
 * compacts; within this margin it still finds the token and decides as if nothing had been
 * dropped.
 */
const COMPACTION_MARGIN_SECONDS = 300;

/** Links a session keeps before its refresh-token list is first compacted. */
const COMPACT_AFTER = 64;

/**
 * Drops what no decision can use any more: the older entries of each token (its first one is
 * its status now) and the tokens expired more than COMPACTION_MARGIN_SECONDS before `now`,
 * which are refused whatever their status (a rotated one that has expired is no longer a sign
 * of theft, as it could not be used anyway).
 * Run when the list has doubled since the last compaction, so a rotation costs constant time
 * on average and a session keeps about two entries per token still unexpired, however many
 * rotations it has had.
 */
function compact(s: SessionState, now: number): SessionState {
  if (s.refreshLinks < COMPACT_AFTER || s.refreshLinks < 2 * s.refreshCompacted) return s;
  const seen = new Set<string>();
  const kept: RefreshState[] = [];
  for (let link = s.refresh; link; link = link.next) {
    if (seen.has(link.item.hash)) continue;
    seen.add(link.item.hash);
    if (now - COMPACTION_MARGIN_SECONDS < link.item.expiresAt) kept.push(link.item);
  }
  return { ...s, refresh: arrayToChain(kept), refreshLinks: kept.length, refreshCompacted: kept.length };
}

/** The grants of the session that have not ended, each with its client (one code made each grant). */
function liveGrants(s: SessionState): Array<{ grantId: string; clientId: string }> {
  const grants: Array<{ grantId: string; clientId: string }> = [];
  for (let link = s.redeemedCodes; link; link = link.next) {
    if (!s.revokedGrants.includes(link.item.grantId)) grants.push({ grantId: link.item.grantId, clientId: link.item.clientId });
  }
  return grants.reverse();
}

/** What a refused code is answered with. */
export const REFUSAL: Record<CodeRefused['data']['reason'], string> = {
  other_client: 'the code was issued to another client',
  redirect_uri: 'redirect_uri does not match the authorization request',
  code_verifier: 'code_verifier does not match the code_challenge',
};
/** What a refresh token presented by another client is answered with. */
export const REFRESH_REFUSAL = 'the refresh token was issued to another client';

function requireLive(state: SessionState, code: 'code_invalid' | 'refresh_invalid'): void {
  if (!state.started) throw new DomainError(code, 'unknown session');
  if (state.revoked) throw new DomainError('session_revoked', 'the session has ended');
}

export const sessionDecider: Decider<SessionCommand, SessionEvent, SessionState> = {
  initialState,
  decide(c, s) {
    const ids = { tenantId: s.tenantId, sessionId: s.sessionId, userId: s.userId };
    switch (c.kind) {
      case 'StartSession':
        if (s.started) {
          // The same sign-in form posted again (a new session's id derives from the pending
          // request and the user): the session it started is signed in to again, its cookie
          // added when posted alongside, so that whichever answer the browser keeps works.
          requireLive(s, 'code_invalid');
          if (c.userId !== s.userId) throw new DomainError('already_exists', 'session exists');
          const alongside = c.now - s.authTime < ALONGSIDE_SECONDS;
          return [{ type: 'UserAuthenticated', data: { ...ids, method: 'pwd', authTime: c.now, cookieHash: c.cookieHash, ...(alongside ? { cookieAdded: true as const } : {}) } }];
        }
        return [
          { type: 'SessionStarted', data: { tenantId: c.tenantId, sessionId: c.sessionId, userId: c.userId, cookieHash: c.cookieHash, authTime: c.now } },
          { type: 'UserAuthenticated', data: { tenantId: c.tenantId, sessionId: c.sessionId, userId: c.userId, method: 'pwd', authTime: c.now } },
        ];
      case 'Reauthenticate':
        requireLive(s, 'code_invalid');
        if (c.userId !== s.userId) throw new DomainError('invalid_value', 'another user is signed in to this session');
        // A sign-in sent alongside the one that just replaced the cookies adds its cookie to the
        // new ones: whichever answer the browser keeps opens the session. Any other replaces them all.
        return [
          {
            type: 'UserAuthenticated',
            data: { ...ids, method: 'pwd', authTime: c.now, cookieHash: c.cookieHash, ...(replacedJustNow(s, c.presentedCookieHash, c.now) ? { cookieAdded: true as const } : {}) },
          },
        ];
      case 'IssueCode':
        requireLive(s, 'code_invalid');
        return [
          {
            type: 'CodeIssued',
            data: {
              ...ids,
              ...c.code,
              codeChallenge: c.code.codeChallengeMethod === 'plain' ? s256(c.code.codeChallenge) : c.code.codeChallenge,
              authTime: s.authTime,
            },
          },
        ];
      case 'RedeemCode': {
        const code = findCode(s, c.codeHash);
        if (!code) throw new DomainError('code_invalid', 'unknown authorization code');
        // A code in the wrong hands is refused, and the attempt recorded while the code could
        // still have been redeemed (the handler answers invalid_grant); a dead one is only refused.
        const refused = (reason: CodeRefused['data']['reason']): SessionEvent[] => {
          if (!s.started || s.revoked || c.now >= code.expiresAt) throw new DomainError('code_invalid', REFUSAL[reason]);
          return [{ type: 'CodeRefused', data: { ...ids, grantId: code.grantId, codeHash: c.codeHash, clientId: code.clientId, presentedBy: c.clientId, reason } }];
        };
        if (code.clientId !== c.clientId) return refused('other_client');
        // Checked before the replay below, so that only a request that could have redeemed the
        // code revokes what it produced: a used code alone (from a log, say) cannot.
        // RFC 6749 §4.1.3: required when the authorization request carried it, and then identical.
        if (c.redirectUri === undefined && !code.redirectUriOmitted) throw new DomainError('invalid_value', 'redirect_uri is required: the authorization request carried one');
        if (c.redirectUri !== undefined && c.redirectUri !== code.redirectUri) return refused('redirect_uri');
        if (!pkceMatches(c.codeVerifier, code.codeChallenge)) return refused('code_verifier');
        if (code.redeemed) {
          // RFC 6749 §4.1.2: a code used twice is refused, and what it produced is revoked. The
          // replay is recorded even when the grant has already ended; its end is recorded once.
          const replayed = { type: 'CodeReplayed' as const, data: { ...ids, grantId: code.grantId, codeHash: c.codeHash, clientId: c.clientId } };
          if (s.revoked || s.revokedGrants.includes(code.grantId)) return [replayed];
          return [replayed, { type: 'GrantRevoked', data: { ...ids, grantId: code.grantId, clientId: code.clientId, reason: 'code_replayed' } }];
        }
        requireLive(s, 'code_invalid');
        if (c.now >= code.expiresAt) throw new DomainError('code_invalid', 'the code has expired');
        const grant = { ...ids, grantId: code.grantId, clientId: c.clientId };
        return [
          { type: 'CodeRedeemed', data: { ...ids, grantId: code.grantId, codeHash: c.codeHash, clientId: c.clientId } },
          userAccessToken(grant, 'authorization_code', c.access, code.scope),
          ...(earnsRefresh(c.refreshRule, code.scope)
            ? [{ type: 'RefreshTokenIssued' as const, data: { ...grant, refreshHash: c.refresh.hash, scope: code.scope, issuedAt: c.now, expiresAt: c.refresh.expiresAt } }]
            : []),
        ];
      }
      case 'RotateRefresh': {
        const rt = findRefresh(s, c.refreshHash);
        if (!rt) throw new DomainError('refresh_invalid', 'unknown refresh token');
        if (rt.clientId !== c.clientId) {
          // Refused, and recorded while the token could still have been used; a thief cannot
          // end the victim's session with it.
          if (s.revoked || c.now >= rt.expiresAt) throw new DomainError('refresh_invalid', REFRESH_REFUSAL);
          return [{ type: 'RefreshRefused', data: { ...ids, grantId: rt.grantId, refreshHash: c.refreshHash, clientId: rt.clientId, presentedBy: c.clientId, reason: 'other_client' } }];
        }
        requireLive(s, 'refresh_invalid');
        // Past its own expiry a token is refused whatever its status: a rotated one could not
        // have been used anyway, so it no longer ends the session (and compact forgets it).
        if (c.now >= rt.expiresAt) throw new DomainError('refresh_invalid', 'the refresh token has expired');
        if (rt.status === 'rotated') {
          return [
            { type: 'RefreshReplayed', data: { ...ids, grantId: rt.grantId, refreshHash: c.refreshHash, clientId: c.clientId } },
            { type: 'SessionRevoked', data: { ...ids, grants: liveGrants(s), reason: 'refresh_replayed' } },
          ];
        }
        if (rt.status === 'revoked' || s.revokedGrants.includes(rt.grantId)) throw new DomainError('refresh_invalid', 'the refresh token was revoked');
        const scope = c.scope ?? rt.scope;
        if (scope.some((x) => !rt.scope.includes(x))) throw new DomainError('invalid_value', 'scope exceeds the original grant');
        const grant = { ...ids, grantId: rt.grantId, clientId: c.clientId };
        return [
          { type: 'RefreshRotated', data: { ...grant, fromHash: c.refreshHash, toHash: c.refresh.hash, scope: rt.scope, issuedAt: c.now, expiresAt: c.refresh.expiresAt } },
          userAccessToken(grant, 'refresh_token', c.access, scope),
        ];
      }
      case 'RevokeAccessToken':
        // A token that has already ended with its session or grant ends only once.
        if (!s.started || s.revoked || (c.grantId !== undefined && s.revokedGrants.includes(c.grantId))) return [];
        return [{ type: 'TokenRevoked', data: { ...ids, grantId: c.grantId, clientId: c.clientId, tokenType: 'access_token', jti: c.jti, reason: 'revocation_request' } }];
      case 'RevokeRefreshToken': {
        const rt = findRefresh(s, c.refreshHash);
        // RFC 7009 §2.2: a token the client does not own, or already invalid (expired included), is silently accepted.
        if (!rt || rt.clientId !== c.clientId || s.revoked || s.revokedGrants.includes(rt.grantId) || c.now >= rt.expiresAt) return [];
        // RFC 7009 §2.1: with it go the tokens of the same grant; the browser session and the
        // grants of other clients (or other sign-ins) in it are not the client's to end.
        return [
          { type: 'TokenRevoked', data: { ...ids, grantId: rt.grantId, clientId: c.clientId, tokenType: 'refresh_token', refreshHash: c.refreshHash, reason: 'revocation_request' } },
          { type: 'GrantRevoked', data: { ...ids, grantId: rt.grantId, clientId: rt.clientId, reason: 'refresh_revoked' } },
        ];
      }
      case 'EndSession':
        if (!s.started || s.revoked) return [];
        return [{ type: 'SessionRevoked', data: { ...ids, grants: liveGrants(s), reason: c.reason } }];
      default:
        return assertNever(c);
    }
  },
  evolve(s, e) {
    switch (e.type) {
      case 'SessionStarted':
        return { ...s, started: true, tenantId: e.data.tenantId, sessionId: e.data.sessionId, userId: e.data.userId, cookieHashes: [e.data.cookieHash], authTime: e.data.authTime };
      case 'UserAuthenticated':
        // Events recorded before cookies were replaced carry none.
        if (!e.data.cookieHash) return { ...s, authTime: e.data.authTime };
        if (e.data.cookieAdded) return { ...s, authTime: e.data.authTime, cookieHashes: [...s.cookieHashes, e.data.cookieHash] };
        return { ...s, authTime: e.data.authTime, cookieHashes: [e.data.cookieHash], replacedCookieHashes: s.cookieHashes, cookieReplacedAt: e.data.authTime };
      case 'CodeIssued': {
        const { tenantId: _t, sessionId: _s, ...code } = e.data;
        return { ...s, codes: [...s.codes, { ...code, redeemed: false }] };
      }
      case 'CodeRedeemed': {
        const code = s.codes.find((c) => c.codeHash === e.data.codeHash);
        if (!code) return s;
        return { ...s, codes: s.codes.filter((c) => c !== code), redeemedCodes: { item: { ...code, redeemed: true }, next: s.redeemedCodes } };
      }
      case 'RefreshTokenIssued':
      case 'RefreshRotated': {
        const hash = e.type === 'RefreshTokenIssued' ? e.data.refreshHash : e.data.toHash;
        const added: RefreshState = { hash, grantId: e.data.grantId, clientId: e.data.clientId, scope: e.data.scope, expiresAt: e.data.expiresAt, status: 'active' };
        const from = withStatus(s, e.type === 'RefreshRotated' ? e.data.fromHash : undefined, 'rotated');
        return compact({ ...s, refresh: { item: added, next: from.refresh }, refreshLinks: from.refreshLinks + 1 }, e.data.issuedAt);
      }
      case 'TokenRevoked':
        return e.data.refreshHash ? { ...s, ...withStatus(s, e.data.refreshHash, 'revoked') } : s;
      case 'CodeReplayed':
      case 'GrantRevoked':
        return s.revokedGrants.includes(e.data.grantId) ? s : { ...s, revokedGrants: [...s.revokedGrants, e.data.grantId] };
      case 'SessionRevoked':
        return { ...s, revoked: true };
      case 'AccessTokenIssued':
      case 'RefreshReplayed':
      case 'CodeRefused':
      case 'RefreshRefused':
        return s;
      default:
        return assertNever(e);
    }
  },
  // Sessions that refresh for months fold tens of thousands of events. Version 1: the state as
  // above; raise it with any change to evolve, compact or the state's shape.
  snapshot: {
    version: 1,
    encode: (s) => ({ ...s, redeemedCodes: chainToArray(s.redeemedCodes), refresh: chainToArray(s.refresh) }),
    decode: (saved) => {
      const s = saved as Omit<SessionState, 'redeemedCodes' | 'refresh'> & { redeemedCodes: CodeState[]; refresh: RefreshState[] };
      return { ...s, redeemedCodes: arrayToChain(s.redeemedCodes), refresh: arrayToChain(s.refresh) };
    },
  },
};
