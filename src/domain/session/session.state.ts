import { type Chain, chainToArray, findIn } from './chain.js';
import { findRotated, type Rotated, rotatedEntries, rotatedKey } from './rotated-token-store.js';
import type { CodeIssued } from './session.events.js';

export interface CodeState extends Omit<CodeIssued['data'], 'tenantId' | 'sessionId'> {
  redeemed: boolean;
  /** Once redeemed: when the access token the redemption issued expires. */
  tokensUntil?: number;
}

/**
 * A grant's refresh tokens (a grant is one code's redemption, so it has one refresh token at
 * a time): the one in use, and the ones its rotations replaced, packed (see Rotated).
 */
export interface GrantRefresh {
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
  /** MFA: that sign-in's authentication methods (RFC 8176), when more than the password; what its refreshed ID tokens say too. */
  amr?: string[];
  /** DPoP: the key its refresh tokens are bound to (a public client's, RFC 9449 §5). */
  jkt?: string;
  /** Resource indicators (RFC 8707): the resource its access tokens are for. */
  resource?: string;
}

/** A refresh token of the session as a decision sees it. */
export interface RefreshState {
  grantId: string;
  clientId: string;
  /** The grant's scope (what a rotation may ask for). */
  scope: string[];
  expiresAt: number;
  status: 'active' | 'rotated' | 'revoked';
  jkt?: string;
  resource?: string;
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
  /** MFA: the last sign-in's authentication methods (RFC 8176), when more than the password. */
  amr?: string[];
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

export const initialState: SessionState = {
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

export function findCode(s: SessionState, codeHash: string): CodeState | undefined {
  return s.codes.find((c) => c.codeHash === codeHash) ?? findIn(s.redeemedCodes, (c) => c.codeHash === codeHash);
}

/** When the user signed in for a grant: its code's sign-in, not the session's latest (OpenID Connect Core §12.2). */
export function grantAuthTime(s: SessionState, grantId: string | undefined): number {
  return findIn(s.refresh, (g) => g.grantId === grantId)?.authTime ?? s.authTime;
}

/** The authentication methods of the sign-in a grant was made on (OpenID Connect Core §12.2), as grantAuthTime; undefined: the password alone. */
export function grantAmr(s: SessionState, grantId: string | undefined): string[] | undefined {
  const g = findIn(s.refresh, (x) => x.grantId === grantId);
  return g ? g.amr : s.amr;
}

/** A refresh token of the session as it is now: active, rotated or revoked. */
export function findRefresh(s: SessionState, hash: string): RefreshState | undefined {
  const g = findIn(s.refresh, (x) => x.current.hash === hash);
  if (g) return { grantId: g.grantId, clientId: g.clientId, scope: g.scope, expiresAt: g.current.expiresAt, status: g.current.revoked ? 'revoked' : 'active', ...(g.jkt ? { jkt: g.jkt } : {}), ...(g.resource ? { resource: g.resource } : {}) };
  for (let link = s.refresh; link; link = link.next) {
    const expiresAt = findRotated(link.item.rotated, hash);
    if (expiresAt !== undefined) return { grantId: link.item.grantId, clientId: link.item.clientId, scope: link.item.scope, expiresAt, status: s.revokedRotated.includes(hash) ? 'revoked' : 'rotated', ...(link.item.jkt ? { jkt: link.item.jkt } : {}), ...(link.item.resource ? { resource: link.item.resource } : {}) };
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

/** How long after a sign-in again another one from the same browser counts as sent alongside it. */
export const ALONGSIDE_SECONDS = 10;

/**
 * Whether a browser presenting one of the cookies the last sign-in again replaced sent its
 * request alongside that sign-in (a form submitted twice, two tabs): within ALONGSIDE_SECONDS.
 */
export function replacedJustNow(s: SessionState, cookieHash: string, now: number): boolean {
  return s.replacedCookieHashes.includes(cookieHash) && now - s.cookieReplacedAt < ALONGSIDE_SECONDS;
}

/**
 * The grants of the session that have not ended, each with its client (one code made each
 * grant): those whose code it keeps (see compactCodes: the others issued nothing alive), then
 * those of codes not redeemed yet that could still be (their clients are waiting for them).
 */
export function liveGrants(s: SessionState, now: number): Array<{ grantId: string; clientId: string }> {
  const grants: Array<{ grantId: string; clientId: string }> = [];
  for (let link = s.redeemedCodes; link; link = link.next) {
    if (!s.revokedGrants.includes(link.item.grantId)) grants.push({ grantId: link.item.grantId, clientId: link.item.clientId });
  }
  grants.reverse();
  for (const c of s.codes) if (now < c.expiresAt) grants.push({ grantId: c.grantId, clientId: c.clientId });
  return grants;
}

/** Whether the grant's tokens may still be used: not ended by itself, nor with its session (unless kept past its end). */
export function grantLive(s: SessionState, grantId: string): boolean {
  return !s.revokedGrants.includes(grantId) && (!s.revoked || s.keptGrants.includes(grantId));
}

/**
 * The grants a logout leaves alive (Back-Channel Logout 1.0 §2.7: offline access normally
 * outlives a logout): those whose refresh token in use was granted with `offline_access`, to
 * another client than the one whose logout request it is.
 */
export function offlineGrantsOfOthers(s: SessionState, grants: ReadonlyArray<{ grantId: string; clientId: string }>, requestedBy: string | undefined, now: number) {
  return grants.filter((g) => {
    if (g.clientId === requestedBy) return false;
    const refresh = findIn(s.refresh, (x) => x.grantId === g.grantId);
    return refresh !== undefined && refresh.scope.includes('offline_access') && !refresh.current.revoked && now < refresh.current.expiresAt;
  });
}
