import { createHash } from 'node:crypto';
import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import { merged } from '../shared/merged.js';
import { type AccessTokenIssued, CODE_TTL_SECONDS, type CodeIssued, type CodeRefused, grantTokenId, type SessionEndReason, type SessionEvent } from './session.events.js';

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
  const { jti, audience, issuedAt, expiresAt, kid, idToken } = spec;
  const data: AccessTokenIssued['data'] = merged(grant, { grantType, jti: grantTokenId(jti, grant.grantId), sub: grant.userId, scope, audience, issuedAt, expiresAt, kid });
  if (scope.includes('openid')) data.idToken = idToken;
  return { type: 'AccessTokenIssued', data };
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

/**
 * A command whose refusal (CodeRefused, RefreshRefused, RevocationRefused) is recorded, unless
 * `unrecorded`: then it is only answered, as an error of the same words.
 */
export interface Refusable {
  unrecorded?: boolean;
}

export type SessionCommand =
  | { kind: 'StartSession'; tenantId: string; sessionId: string; userId: string; cookieHash: string; now: number }
  | { kind: 'Reauthenticate'; userId: string; presentedCookieHash: string; cookieHash: string; now: number }
  | { kind: 'IssueCode'; code: Omit<CodeIssued['data'], 'tenantId' | 'sessionId' | 'userId' | 'authTime'> }
  | ({ kind: 'RedeemCode'; codeHash: string; clientId: string; redirectUri: string | undefined; codeVerifier: string; now: number; access: AccessTokenSpec; refresh: RefreshSpec; refreshRule: RefreshRule } & Refusable)
  | ({ kind: 'RotateRefresh'; refreshHash: string; clientId: string; scope?: string[]; now: number; access: AccessTokenSpec; refresh: RefreshSpec } & Refusable)
  /** `clientId` presents the token, which was issued to `owner`. */
  | ({ kind: 'RevokeAccessToken'; jti: string; grantId?: string; clientId: string; owner: string } & Refusable)
  | ({ kind: 'RevokeRefreshToken'; refreshHash: string; clientId: string; now: number } & Refusable)
  /** `requestedBy`: the client whose logout request it is (RP-Initiated Logout), when one is named. */
  | { kind: 'EndSession'; reason: SessionEndReason; now: number; requestedBy?: string };

export interface CodeState extends Omit<CodeIssued['data'], 'tenantId' | 'sessionId'> {
  redeemed: boolean;
  /** Once redeemed: when the access token the redemption issued expires. */
  tokensUntil?: number;
}

/**
 * A grant's refresh tokens (a grant is one code's redemption, so it has one refresh token at
 * a time): the one in use, and the ones its rotations replaced, packed (see Rotated).
 */
interface GrantRefresh {
  grantId: string;
  clientId: string;
  scope: string[];
  /** The token in use; `revoked` once revoked by itself (its grant ends with it). */
  current: { hash: string; expiresAt: number; revoked: boolean };
  rotated: Rotated;
  /** When the access token of the grant's last rotation expires (0 before any). */
  accessUntil: number;
  /** The sign-in the grant's code was issued on: what its refreshed ID tokens say (OpenID Connect Core §12.2). */
  authTime: number;
}

/** A refresh token of the session as a decision sees it. */
interface RefreshState {
  grantId: string;
  clientId: string;
  /** The grant's scope (what a rotation may ask for). */
  scope: string[];
  expiresAt: number;
  status: 'active' | 'rotated' | 'revoked';
}

/**
 * The tokens a grant's rotations replaced, oldest first, each a record of 24 characters: the
 * last 16 characters of its hash (a hash ends with its SHA-256 in base64url: 94 bits of it,
 * where the hash's start is a time stamp anyone holding the token can read; a shorter hash is
 * led by dots) and its expiry in 8 hex digits. Records fill chunks of 16: the full ones newest
 * first, each one string, then the open one, which appends leave in parts (and each part holds
 * on to the hash it came from) until it is full. A rotated token costs the session about 28
 * bytes once its chunk is full, where an object per token cost about 220; a session that
 * rotates every few minutes keeps thousands of them until they expire.
 */
interface Rotated {
  readonly full: Chain<string> | null;
  readonly open: string;
}

const KEY_LENGTH = 16;
const RECORD_LENGTH = 24;
const CHUNK_LENGTH = 16 * RECORD_LENGTH;
const NO_ROTATED: Rotated = { full: null, open: '' };

function rotatedKey(hash: string): string {
  return hash.slice(-KEY_LENGTH).padStart(KEY_LENGTH, '.');
}

function rotatedRecord(hash: string, expiresAt: number): string {
  return rotatedKey(hash) + Math.min(Math.max(expiresAt, 0), 0xffffffff).toString(16).padStart(8, '0');
}

/** A copy held in one piece: appends leave a string of many small parts, each with its own header. */
function flat(s: string): string {
  return Buffer.from(s, 'latin1').toString('latin1');
}

function withRotated(r: Rotated, record: string): Rotated {
  const open = r.open + record;
  return open.length < CHUNK_LENGTH ? { full: r.full, open } : { full: { item: flat(open), next: r.full }, open: '' };
}

/** Records (oldest first, concatenated) packed as folding them one by one would. */
function packRotated(records: string): Rotated {
  let full: Chain<string> | null = null;
  let at = 0;
  for (; at + CHUNK_LENGTH <= records.length; at += CHUNK_LENGTH) full = { item: records.slice(at, at + CHUNK_LENGTH), next: full };
  return { full, open: records.slice(at) };
}

/** Every record, oldest first, concatenated. */
function rotatedRecords(r: Rotated): string {
  return [...chainToArray(r.full).reverse(), r.open].join('');
}

/** Each record's key and expiry, oldest first. */
function* rotatedEntries(r: Rotated): Generator<{ record: string; key: string; expiresAt: number }> {
  const all = rotatedRecords(r);
  for (let i = 0; i < all.length; i += RECORD_LENGTH) {
    const record = all.slice(i, i + RECORD_LENGTH);
    yield { record, key: record.slice(0, KEY_LENGTH), expiresAt: parseInt(record.slice(KEY_LENGTH), 16) };
  }
}

/** The expiry recorded in `chunk` for the key, if a record there has it. */
function expiryIn(chunk: string, key: string): number | undefined {
  for (let i = chunk.indexOf(key); i !== -1; i = chunk.indexOf(key, i + 1)) {
    if (i % RECORD_LENGTH === 0) return parseInt(chunk.slice(i + KEY_LENGTH, i + RECORD_LENGTH), 16);
  }
  return undefined;
}

/** The expiry of the rotated token `hash`, if the grant's rotations replaced it. */
function findRotated(r: Rotated, hash: string): number | undefined {
  const key = rotatedKey(hash);
  let found = expiryIn(r.open, key);
  for (let link = r.full; found === undefined && link; link = link.next) found = expiryIn(link.item, key);
  return found;
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
  /** The last sign-in, or the last code issued to the browser since: the session's last use. */
  activeAt: number;
  revoked: boolean;
  /** Codes not redeemed yet, oldest first. */
  codes: readonly CodeState[];
  /** Redeemed codes, newest first, while what they issued may be alive (see compactCodes). */
  redeemedCodes: Chain<CodeState> | null;
  /** Redeemed codes kept, and how many their last compaction kept. */
  redeemedCount: number;
  redeemedCompacted: number;
  /**
   * The refresh tokens of each grant that earned one, the grant changed last first (a change
   * moves its grant to the front, so the grants in use stay near it). Compacted as rotations
   * add up (see compact).
   */
  refresh: Chain<GrantRefresh> | null;
  /** Rotated tokens kept, and how many its last compaction kept. */
  rotatedCount: number;
  rotatedCompacted: number;
  /** Rotated tokens revoked since (each grant's current token keeps its own flag). */
  revokedRotated: readonly string[];
  revokedGrants: string[];
  /** Grants that outlived the session's end (offline grants of other clients at a logout): see grantLive. */
  keptGrants: readonly string[];
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
  activeAt: 0,
  revoked: false,
  codes: [],
  redeemedCodes: null,
  redeemedCount: 0,
  redeemedCompacted: 0,
  refresh: null,
  rotatedCount: 0,
  rotatedCompacted: 0,
  revokedRotated: [],
  revokedGrants: [],
  keptGrants: [],
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

/** When the user signed in for a grant: its code's sign-in, not the session's latest (OpenID Connect Core §12.2). */
export function grantAuthTime(s: SessionState, grantId: string | undefined): number {
  return findIn(s.refresh, (g) => g.grantId === grantId)?.authTime ?? s.authTime;
}

/** A refresh token of the session as it is now: active, rotated or revoked. */
function findRefresh(s: SessionState, hash: string): RefreshState | undefined {
  const g = findIn(s.refresh, (x) => x.current.hash === hash);
  if (g) return { grantId: g.grantId, clientId: g.clientId, scope: g.scope, expiresAt: g.current.expiresAt, status: g.current.revoked ? 'revoked' : 'active' };
  for (let link = s.refresh; link; link = link.next) {
    const expiresAt = findRotated(link.item.rotated, hash);
    if (expiresAt !== undefined) return { grantId: link.item.grantId, clientId: link.item.clientId, scope: link.item.scope, expiresAt, status: s.revokedRotated.includes(hash) ? 'revoked' : 'rotated' };
  }
  return undefined;
}

/**
 * What the session knows of its refresh tokens (the tests read it): each one's key (its
 * hash; for a rotated one, the hash's last 16 characters), status and expiry.
 */
export function refreshTokensOf(s: SessionState): Array<{ key: string; status: RefreshState['status']; expiresAt: number }> {
  return chainToArray(s.refresh).flatMap((g) => [
    ...[...rotatedEntries(g.rotated)].map(({ key, expiresAt }) => ({ key, status: s.revokedRotated.some((h) => rotatedKey(h) === key) ? ('revoked' as const) : ('rotated' as const), expiresAt })),
    { key: g.current.hash, status: g.current.revoked ? ('revoked' as const) : ('active' as const), expiresAt: g.current.expiresAt },
  ]);
}

/**
 * The first item of `chain` that matches, and the chain without it (the links before it
 * copied): constant time when it is near the front, where a change put it.
 */
function takeFrom<T>(chain: Chain<T> | null, match: (item: T) => boolean): { item: T; rest: Chain<T> | null } | undefined {
  const before: T[] = [];
  for (let link = chain; link; link = link.next) {
    if (match(link.item)) {
      let rest = link.next;
      for (let i = before.length - 1; i >= 0; i--) rest = { item: before[i], next: rest };
      return { item: link.item, rest };
    }
    before.push(link.item);
  }
  return undefined;
}

/** Whether a list compacted to `compacted` entries and grown to `count` since is due again: from COMPACT_AFTER entries, once it has doubled. */
function compactionDue(count: number, compacted: number): boolean {
  return count >= COMPACT_AFTER && count >= 2 * compacted;
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

/** Rotated tokens (or redeemed codes) a session keeps before they are first compacted. */
const COMPACT_AFTER = 64;

/**
 * Drops what no decision can use any more: the tokens expired more than
 * COMPACTION_MARGIN_SECONDS before `now`, which are refused whatever their status (a rotated
 * one that has expired is no longer a sign of theft, as it could not be used anyway), and the
 * grants left with none. Run when the rotated tokens kept have doubled since the last
 * compaction, so a rotation costs constant time on average and a session keeps about the
 * tokens still unexpired, however many rotations it has had.
 */
function compact(s: SessionState, now: number): SessionState {
  return compactionDue(s.rotatedCount, s.rotatedCompacted) ? pruneRefresh(s, now) : s;
}

/** What compact drops, dropped now. */
function pruneRefresh(s: SessionState, now: number): SessionState {
  const live = (expiresAt: number) => now - COMPACTION_MARGIN_SECONDS < expiresAt;
  const refresh: GrantRefresh[] = [];
  let kept = 0;
  for (const g of chainToArray(s.refresh)) {
    let records = '';
    for (const r of rotatedEntries(g.rotated)) if (live(r.expiresAt)) records += r.record;
    if (!records && !live(Math.max(g.current.expiresAt, g.accessUntil))) continue;
    kept += records.length / RECORD_LENGTH;
    refresh.push({ ...g, rotated: packRotated(records) });
  }
  const known = (hash: string) => refresh.some((g) => findRotated(g.rotated, hash) !== undefined);
  return { ...s, refresh: arrayToChain(refresh), rotatedCount: kept, rotatedCompacted: kept, revokedRotated: s.revokedRotated.filter(known) };
}

/** The redeemed codes with `until` as the expiry of the tokens grant `grantId`'s code issued (that code was redeemed last, in the same decision). */
function withTokensUntil(chain: Chain<CodeState> | null, grantId: string, until: number): Chain<CodeState> | null {
  const found = takeFrom(chain, (c) => c.grantId === grantId);
  return found ? { item: merged(found.item, { tokensUntil: Math.max(found.item.tokensUntil ?? 0, until) }), next: found.rest } : chain;
}

/**
 * Drops the codes no decision can use any more: a redeemed code once everything its grant
 * issued (its access tokens, the refresh token in use) expired more than
 * COMPACTION_MARGIN_SECONDS before `now` (a replay could revoke nothing: it is refused as an
 * unknown code, and no longer recorded), and a code never redeemed once it expired; with them,
 * the revoked grants nothing refers to, and what compact drops. Run when the redeemed codes
 * kept have doubled since the last compaction: a browser that renews silently every few
 * minutes for months keeps the codes of its live grants, not one per renewal (about 900 bytes
 * each).
 */
function compactCodes(before: SessionState, now: number): SessionState {
  if (!compactionDue(before.redeemedCount, before.redeemedCompacted)) return before;
  // The grants' refresh tokens first: a grant that never rotates is dropped only here.
  const s = pruneRefresh(before, now);
  const alive = (until: number) => now - COMPACTION_MARGIN_SECONDS < until;
  const grants = chainToArray(s.refresh);
  const refreshOf = new Map(grants.map((g) => [g.grantId, g]));
  const kept: CodeState[] = [];
  for (let link = s.redeemedCodes; link; link = link.next) {
    const c = link.item;
    const g = refreshOf.get(c.grantId);
    if (alive(Math.max(c.tokensUntil ?? c.expiresAt, g?.current.expiresAt ?? 0, g?.accessUntil ?? 0))) kept.push(c);
  }
  const codes = s.codes.filter((c) => alive(c.expiresAt));
  const referred = new Set([...kept, ...grants].map((x) => x.grantId));
  return {
    ...s,
    codes,
    redeemedCodes: arrayToChain(kept),
    redeemedCount: kept.length,
    redeemedCompacted: kept.length,
    revokedGrants: s.revokedGrants.filter((id) => referred.has(id)),
    keptGrants: s.keptGrants.filter((id) => referred.has(id)),
  };
}

/**
 * The grants of the session that have not ended, each with its client (one code made each
 * grant): those whose code it keeps (see compactCodes: the others issued nothing alive), then
 * those of codes not redeemed yet that could still be (their clients are waiting for them).
 */
function liveGrants(s: SessionState, now: number): Array<{ grantId: string; clientId: string }> {
  const grants: Array<{ grantId: string; clientId: string }> = [];
  for (let link = s.redeemedCodes; link; link = link.next) {
    if (!s.revokedGrants.includes(link.item.grantId)) grants.push({ grantId: link.item.grantId, clientId: link.item.clientId });
  }
  grants.reverse();
  for (const c of s.codes) if (now < c.expiresAt) grants.push({ grantId: c.grantId, clientId: c.clientId });
  return grants;
}

/** Whether the grant's tokens may still be used: not ended by itself, nor with its session (unless kept past its end). */
function grantLive(s: SessionState, grantId: string): boolean {
  return !s.revokedGrants.includes(grantId) && (!s.revoked || s.keptGrants.includes(grantId));
}

/**
 * The grants a logout leaves alive (Back-Channel Logout 1.0 §2.7: offline access normally
 * outlives a logout): those whose refresh token in use was granted with `offline_access`, to
 * another client than the one whose logout request it is.
 */
function offlineGrantsOfOthers(s: SessionState, grants: ReadonlyArray<{ grantId: string; clientId: string }>, requestedBy: string | undefined, now: number) {
  return grants.filter((g) => {
    if (g.clientId === requestedBy) return false;
    const refresh = findIn(s.refresh, (x) => x.grantId === g.grantId);
    return refresh !== undefined && refresh.scope.includes('offline_access') && !refresh.current.revoked && now < refresh.current.expiresAt;
  });
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
            data: Object.assign({}, ids, c.code, {
              codeChallenge: c.code.codeChallengeMethod === 'plain' ? s256(c.code.codeChallenge) : c.code.codeChallenge,
              authTime: s.authTime,
            }),
          },
        ];
      case 'RedeemCode': {
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
        if (code.redeemed) {
          // RFC 6749 §4.1.2: a code used twice is refused, and what it produced is revoked. The
          // replay is recorded even when the grant has already ended; its end is recorded once.
          const replayed = { type: 'CodeReplayed' as const, data: { ...ids, grantId: code.grantId, codeHash: c.codeHash, clientId: c.clientId } };
          if (!grantLive(s, code.grantId)) return [replayed];
          return [replayed, { type: 'GrantRevoked', data: { ...ids, grantId: code.grantId, clientId: code.clientId, reason: 'code_replayed' } }];
        }
        requireLive(s, 'code_invalid');
        if (c.now >= code.expiresAt) throw new DomainError('code_invalid', 'the code has expired');
        const grant = merged(ids, { grantId: code.grantId, clientId: c.clientId });
        return [
          { type: 'CodeRedeemed', data: merged(ids, { grantId: code.grantId, codeHash: c.codeHash, clientId: c.clientId }) },
          userAccessToken(grant, 'authorization_code', c.access, code.scope),
          ...(earnsRefresh(c.refreshRule, code.scope)
            ? [{ type: 'RefreshTokenIssued' as const, data: merged(grant, { refreshHash: c.refresh.hash, scope: code.scope, issuedAt: c.now, expiresAt: c.refresh.expiresAt }) }]
            : []),
        ];
      }
      case 'RotateRefresh': {
        const rt = findRefresh(s, c.refreshHash);
        if (!rt) throw new DomainError('refresh_invalid', 'unknown refresh token');
        if (rt.clientId !== c.clientId) {
          // Refused, and recorded while the token could still have been used; a thief cannot
          // end the victim's session with it.
          if (!grantLive(s, rt.grantId) || c.now >= rt.expiresAt || c.unrecorded) throw new DomainError('refresh_invalid', REFRESH_REFUSAL);
          return [{ type: 'RefreshRefused', data: { ...ids, grantId: rt.grantId, refreshHash: c.refreshHash, clientId: rt.clientId, presentedBy: c.clientId, reason: 'other_client' } }];
        }
        if (!s.started) throw new DomainError('refresh_invalid', 'unknown session');
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
        const grant = merged(ids, { grantId: rt.grantId, clientId: c.clientId });
        return [
          { type: 'RefreshRotated', data: merged(grant, { fromHash: c.refreshHash, toHash: c.refresh.hash, scope: rt.scope, issuedAt: c.now, expiresAt: c.refresh.expiresAt }) },
          userAccessToken(grant, 'refresh_token', c.access, scope),
        ];
      }
      case 'RevokeAccessToken':
        // A token that has already ended with its session or grant ends only once.
        if (!s.started || (c.grantId !== undefined ? !grantLive(s, c.grantId) : s.revoked)) return [];
        if (c.owner !== c.clientId) {
          if (c.unrecorded) throw new DomainError('refresh_invalid', REVOCATION_REFUSAL);
          return [{ type: 'RevocationRefused', data: { ...ids, grantId: c.grantId, clientId: c.owner, presentedBy: c.clientId, tokenType: 'access_token', jti: c.jti } }];
        }
        return [{ type: 'TokenRevoked', data: { ...ids, grantId: c.grantId, clientId: c.clientId, tokenType: 'access_token', jti: c.jti, reason: 'revocation_request' } }];
      case 'RevokeRefreshToken': {
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
      case 'EndSession': {
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
      default:
        return assertNever(c);
    }
  },
  evolve(s, e) {
    switch (e.type) {
      case 'SessionStarted':
        return { ...s, started: true, tenantId: e.data.tenantId, sessionId: e.data.sessionId, userId: e.data.userId, cookieHashes: [e.data.cookieHash], authTime: e.data.authTime, activeAt: e.data.authTime };
      case 'UserAuthenticated': {
        const signedIn = { authTime: e.data.authTime, activeAt: Math.max(s.activeAt, e.data.authTime) };
        // Events recorded before cookies were replaced carry none.
        if (!e.data.cookieHash) return { ...s, ...signedIn };
        if (e.data.cookieAdded) return { ...s, ...signedIn, cookieHashes: [...s.cookieHashes, e.data.cookieHash] };
        return { ...s, ...signedIn, cookieHashes: [e.data.cookieHash], replacedCookieHashes: s.cookieHashes, cookieReplacedAt: e.data.authTime };
      }
      case 'CodeIssued': {
        const { tenantId: _t, sessionId: _s, ...code } = e.data;
        return { ...s, codes: [...s.codes, merged(code, { redeemed: false })], activeAt: Math.max(s.activeAt, code.issuedAt ?? code.expiresAt - CODE_TTL_SECONDS) };
      }
      case 'CodeRedeemed': {
        const code = s.codes.find((c) => c.codeHash === e.data.codeHash);
        if (!code) return s;
        return { ...s, codes: s.codes.filter((c) => c !== code), redeemedCodes: { item: { ...code, redeemed: true }, next: s.redeemedCodes }, redeemedCount: s.redeemedCount + 1 };
      }
      case 'RefreshTokenIssued': {
        // A grant earns one refresh token, at its code's redemption.
        const { grantId, clientId, scope, refreshHash, expiresAt } = e.data;
        const authTime = findIn(s.redeemedCodes, (c) => c.grantId === grantId)?.authTime ?? s.authTime;
        return { ...s, refresh: { item: { grantId, clientId, scope, current: { hash: refreshHash, expiresAt, revoked: false }, rotated: NO_ROTATED, accessUntil: 0, authTime }, next: s.refresh } };
      }
      case 'RefreshRotated': {
        // decide rotates only the token a grant has in use.
        const found = takeFrom(s.refresh, (x) => x.grantId === e.data.grantId);
        if (!found || found.item.current.hash !== e.data.fromHash) return s;
        const g = found.item;
        const rotated = withRotated(g.rotated, rotatedRecord(g.current.hash, g.current.expiresAt));
        const current = { hash: e.data.toHash, expiresAt: e.data.expiresAt, revoked: false };
        return compact({ ...s, refresh: { item: { ...g, current, rotated }, next: found.rest }, rotatedCount: s.rotatedCount + 1 }, e.data.issuedAt);
      }
      case 'TokenRevoked': {
        const hash = e.data.refreshHash;
        if (!hash) return s;
        const found = takeFrom(s.refresh, (x) => x.current.hash === hash);
        if (found) return { ...s, refresh: { item: { ...found.item, current: { ...found.item.current, revoked: true } }, next: found.rest } };
        const rotated = findIn(s.refresh, (g) => findRotated(g.rotated, hash) !== undefined);
        return rotated && !s.revokedRotated.includes(hash) ? { ...s, revokedRotated: [...s.revokedRotated, hash] } : s;
      }
      case 'CodeReplayed':
      case 'GrantRevoked':
        return s.revokedGrants.includes(e.data.grantId) ? s : { ...s, revokedGrants: [...s.revokedGrants, e.data.grantId] };
      case 'SessionRevoked':
        return { ...s, revoked: true, keptGrants: e.data.kept?.map((g) => g.grantId) ?? [] };
      case 'AccessTokenIssued': {
        const { grantId, grantType, expiresAt } = e.data;
        if (!grantId) return s;
        if (grantType === 'refresh_token') {
          const found = takeFrom(s.refresh, (x) => x.grantId === grantId);
          return found ? { ...s, refresh: { item: { ...found.item, accessUntil: Math.max(found.item.accessUntil, expiresAt) }, next: found.rest } } : s;
        }
        return compactCodes({ ...s, redeemedCodes: withTokensUntil(s.redeemedCodes, grantId, expiresAt) }, e.data.issuedAt);
      }
      case 'RefreshReplayed':
      case 'CodeRefused':
      case 'RefreshRefused':
      case 'RevocationRefused':
        return s;
      default:
        return assertNever(e);
    }
  },
  // Sessions that refresh for months fold tens of thousands of events. Version 10: the state as
  // above (rotated tokens packed, codes compacted, each grant's authTime, grants kept past the end); raise it with any
  // change to evolve, compact or the state's shape.
  snapshot: {
    version: 10,
    encode: (s) => ({
      ...s,
      redeemedCodes: chainToArray(s.redeemedCodes),
      refresh: chainToArray(s.refresh).map((g) => ({ ...g, rotated: rotatedRecords(g.rotated) })),
    }),
    decode: (saved) => {
      const s = saved as Omit<SessionState, 'redeemedCodes' | 'refresh'> & { redeemedCodes: CodeState[]; refresh: Array<Omit<GrantRefresh, 'rotated'> & { rotated: string }> };
      return { ...s, redeemedCodes: arrayToChain(s.redeemedCodes), refresh: arrayToChain(s.refresh.map((g) => ({ ...g, rotated: packRotated(g.rotated) }))) };
    },
  },
};
