import { assertNever, type Decider } from '../shared/decider.js';
import { merged } from '../shared/merged.js';
import { findIn, takeFrom } from './chain.js';
import { findRotated, NO_ROTATED, rotatedRecord, withRotated } from './rotated-token-store.js';
import type { SessionCommand } from './session.commands.js';
import { compact, compactCodes, withTokensUntil } from './session.compaction.js';
import { decisions } from './session.decisions.js';
import { CODE_TTL_SECONDS, type SessionEvent } from './session.events.js';
import { sessionSnapshot } from './session.snapshot.js';
import { type GrantRefresh, initialState, type SessionState } from './session.state.js';

export type { Chain } from './chain.js';
export type { AccessTokenSpec, RefreshRule, RefreshSpec, Refusable, SessionCommand } from './session.commands.js';
export { pkceMatches, REFRESH_REFUSAL, REFUSAL, REVOCATION_REFUSAL, s256 } from './session.decisions.js';
export { type CodeState, findCode, grantAmr, grantAuthTime, refreshTokensOf, replacedJustNow, type SessionState } from './session.state.js';

/**
 * A browser session and the grants made in it: decide hands each command to its own function
 * (session.decisions.ts); evolve folds events, compacting what no decision can use any more
 * (session.compaction.ts); long streams are saved by session.snapshot.ts.
 */
export const sessionDecider: Decider<SessionCommand, SessionEvent, SessionState> = {
  initialState,
  decide(c, s) {
    const decide = decisions[c.kind] as (c: SessionCommand, s: SessionState) => SessionEvent[];
    return decide ? decide(c, s) : assertNever(c as never);
  },
  evolve(s, e) {
    switch (e.type) {
      case 'SessionStarted':
        return { ...s, started: true, tenantId: e.data.tenantId, sessionId: e.data.sessionId, userId: e.data.userId, cookieHashes: [e.data.cookieHash], authTime: e.data.authTime, activeAt: e.data.authTime };
      case 'UserAuthenticated': {
        // Each sign-in says what it proved: the methods of the one before do not carry over.
        const { amr: _before, ...was } = s;
        const signedIn = { authTime: e.data.authTime, activeAt: Math.max(s.activeAt, e.data.authTime), ...(e.data.amr ? { amr: e.data.amr } : {}) };
        // Events recorded before cookies were replaced carry none.
        if (!e.data.cookieHash) return { ...was, ...signedIn };
        if (e.data.cookieAdded) return { ...was, ...signedIn, cookieHashes: [...s.cookieHashes, e.data.cookieHash] };
        return { ...was, ...signedIn, cookieHashes: [e.data.cookieHash], replacedCookieHashes: s.cookieHashes, cookieReplacedAt: e.data.authTime };
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
        const { grantId, clientId, scope, refreshHash, expiresAt, jkt, resource } = e.data;
        // Its code's sign-in (the code carries the session's authTime and amr when it was issued).
        const code = findIn(s.redeemedCodes, (c) => c.grantId === grantId);
        const authTime = code?.authTime ?? s.authTime;
        const item: GrantRefresh = { grantId, clientId, scope, current: { hash: refreshHash, expiresAt, revoked: false }, rotated: NO_ROTATED, accessUntil: 0, authTime };
        const amr = code ? code.amr : s.amr;
        if (amr) item.amr = amr;
        if (jkt) item.jkt = jkt;
        if (resource) item.resource = resource;
        return { ...s, refresh: { item, next: s.refresh } };
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
  snapshot: sessionSnapshot,
};
