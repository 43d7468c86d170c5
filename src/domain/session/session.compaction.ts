import { arrayToChain, type Chain, chainToArray, takeFrom } from './chain.js';
import { findRotated, packRotated, RECORD_LENGTH, rotatedEntries } from './rotated-token-store.js';
import type { CodeState, GrantRefresh, SessionState } from './session.state.js';
import { merged } from '../shared/merged.js';

/** Whether a list compacted to `compacted` entries and grown to `count` since is due again: from COMPACT_AFTER entries, once it has doubled. */
export function compactionDue(count: number, compacted: number): boolean {
  return count >= COMPACT_AFTER && count >= 2 * compacted;
}

/**
 * How long past its expiry a token stays in the list: a command's time is taken before it
 * waits for its turn (or on another server's clock), so it may lag behind the event that
 * compacts; within this margin it still finds the token and decides as if nothing had been
 * dropped.
 */
export const COMPACTION_MARGIN_SECONDS = 300;

/** Rotated tokens (or redeemed codes) a session keeps before they are first compacted. */
export const COMPACT_AFTER = 64;

/**
 * Drops what no decision can use any more: the tokens expired more than
 * COMPACTION_MARGIN_SECONDS before `now`, which are refused whatever their status (a rotated
 * one that has expired is no longer a sign of theft, as it could not be used anyway), and the
 * grants left with none. Run when the rotated tokens kept have doubled since the last
 * compaction, so a rotation costs constant time on average and a session keeps about the
 * tokens still unexpired, however many rotations it has had.
 */
export function compact(s: SessionState, now: number): SessionState {
  return compactionDue(s.rotatedCount, s.rotatedCompacted) ? pruneRefresh(s, now) : s;
}

/** What compact drops, dropped now. */
export function pruneRefresh(s: SessionState, now: number): SessionState {
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
export function withTokensUntil(chain: Chain<CodeState> | null, grantId: string, until: number): Chain<CodeState> | null {
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
export function compactCodes(before: SessionState, now: number): SessionState {
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
