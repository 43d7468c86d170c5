import { types } from '../shared/decider-spec.js';
import { compact, COMPACT_AFTER, compactionDue, pruneRefresh } from './session.compaction.js';
import { access, code, given, kept, redeem, redeemed, rotate, started } from './session.fixtures.js';

describe('session compaction', () => {
  it('is due from COMPACT_AFTER entries, once they have doubled since the last compaction', () => {
    expect(COMPACT_AFTER).toBe(64);
    expect(compactionDue(63, 0)).toBe(false);
    expect(compactionDue(64, 0)).toBe(true);
    expect(compactionDue(64, 33)).toBe(false);
    expect(compactionDue(66, 33)).toBe(true);
    expect(compactionDue(100, 40)).toBe(true);
  });

  // r1 (until 1000) rotated at 200 into r2 (until 400), rotated at 300 into r3 (until 2000).
  const twice = given(given(given(redeemed).after(rotate('r1', 'r2', { refresh: { hash: 'r2', expiresAt: 400 } }))).after(rotate('r2', 'r3', { now: 300 }))).state;

  it('prunes the rotated tokens expired more than five minutes before, and counts those it keeps', () => {
    const hashes = (now: number) => kept(pruneRefresh(twice, now)).map((t) => `${t.hash}:${t.status}`);
    expect(hashes(699)).toEqual(['r1:rotated', 'r2:rotated', 'r3:active']);
    expect(hashes(700)).toEqual(['r1:rotated', 'r3:active']);
    expect(hashes(1299)).toEqual(['r1:rotated', 'r3:active']);
    expect(hashes(1300)).toEqual(['r3:active']);
    expect(pruneRefresh(twice, 1300)).toMatchObject({ rotatedCount: 0, rotatedCompacted: 0 });
    expect(pruneRefresh(twice, 700)).toMatchObject({ rotatedCount: 1, rotatedCompacted: 1 });
    // A grant left with nothing alive is dropped.
    expect(kept(pruneRefresh(twice, 2300))).toEqual([]);
    expect(kept(pruneRefresh(twice, 2299))).toHaveLength(1);
  });

  it('forgets a revoked rotated token together with its record', () => {
    const revoked = given(given(redeemed).after(rotate('r1', 'r2', { refresh: { hash: 'r2', expiresAt: 400 } }))).after({ kind: 'RevokeRefreshToken', refreshHash: 'r1', clientId: 'web', now: 250 });
    const s = given(revoked).state;
    expect(s.revokedRotated).toEqual(['r1']);
    expect(pruneRefresh(s, 1299).revokedRotated).toEqual(['r1']);
    expect(pruneRefresh(s, 1300).revokedRotated).toEqual([]);
  });

  it('leaves the state as it is until compaction is due', () => {
    expect(compact(twice, 5000)).toBe(twice);
  });

  it('keeps a bounded list of refresh tokens over endless rotations: each token once, the expired ones dropped', () => {
    // A rotation every 10 s, each token living 100 s: about ten tokens are unexpired at any time.
    let events = redeemed;
    const at = (i: number) => ({ now: 200 + 10 * i, refresh: { hash: `r${i + 1}`, expiresAt: 300 + 10 * i } });
    for (let i = 1; i <= 1000; i++) events = given(events).after(rotate(`r${i}`, `r${i + 1}`, at(i)));
    const s = given(events);
    expect(kept(s.state).length).toBeLessThan(100);
    const now = at(1000).now;
    // The newest rotates; a rotated token still unexpired is a replay that ends the session...
    expect(types(s.when(rotate('r1001', 'x', { now })))).toEqual(['RefreshRotated', 'AccessTokenIssued']);
    expect(types(s.when(rotate('r995', 'x', { now })))).toEqual(['RefreshReplayed', 'SessionRevoked']);
    // ...while one long expired is refused like any expired token, ending nothing.
    expect(s.refused(rotate('r1', 'x', { now }))).toBe('refresh_invalid');
    expect(s.when({ kind: 'RevokeRefreshToken', refreshHash: 'r1', clientId: 'web', now })).toEqual([]);
    // What the list keeps is exactly each unexpired token with its status now, read from the events themselves.
    const expected = new Map<string, string>();
    for (const e of events) {
      if (e.type === 'RefreshTokenIssued' && e.data.expiresAt > now) expected.set(e.data.refreshHash, 'active');
      if (e.type === 'RefreshRotated') {
        if (e.data.expiresAt > now) expected.set(e.data.toHash, 'active');
        if (expected.has(e.data.fromHash)) expected.set(e.data.fromHash, 'rotated');
      }
    }
    const unexpired = kept(s.state).filter((t) => t.expiresAt > now);
    expect(new Map(unexpired.map((t) => [t.hash, t.status]))).toEqual(expected);
    expect(unexpired).toHaveLength(expected.size);
    // And the tokens that expired long before (beyond the margin of a few minutes) are gone.
    for (const t of kept(s.state)) expect(t.expiresAt).toBeGreaterThan(now - 1000);
  });

  it('keeps a token for a while past its expiry, so a command whose clock lags behind the compaction decides as without it', () => {
    // A rotation every 10 s, each token living 20 s: the list is compacted every so often.
    const at = (i: number) => 200 + 10 * i;
    let events = redeemed;
    for (let i = 1; i <= 120; i++) {
      events = given(events).after(rotate(`r${i}`, `r${i + 1}`, { now: at(i), refresh: { hash: `r${i + 1}`, expiresAt: at(i) + 20 } }));
      // r(i-1) expired at at(i), the time of this rotation: a command whose time was taken a
      // second earlier still sees a replay, whether or not this rotation compacted the list.
      if (i >= 2) expect(types(given(events).when(rotate(`r${i - 1}`, 'x', { now: at(i) - 1 })))).toEqual(['RefreshReplayed', 'SessionRevoked']);
    }
    const s = given(events);
    expect(s.refused(rotate('r119', 'x', { now: at(120) }))).toBe('refresh_invalid');
    // Tokens expired long before are gone: the last compaction (at the 96th rotation, once the
    // 32 rotated tokens the one at the 64th kept had doubled) kept only those expired less than
    // five minutes before it.
    for (const t of kept(s.state)) expect(t.expiresAt).toBeGreaterThan(at(96) - 300);
    expect(kept(s.state).length).toBeLessThan(70);
  });

  it('refuses a rotated token past its own expiry without ending anything, compacted or not', () => {
    // A short session (never compacted): r1 expired at 1000, rotated at 200.
    const s = given(given(redeemed).after(rotate('r1', 'r2')));
    expect(types(s.when(rotate('r1', 'x', { now: 999 })))).toEqual(['RefreshReplayed', 'SessionRevoked']);
    expect(s.refused(rotate('r1', 'x', { now: 1000 }))).toBe('refresh_invalid');
    expect(s.when({ kind: 'RevokeRefreshToken', refreshHash: 'r1', clientId: 'web', now: 1000 })).toEqual([]);
    expect(types(s.when({ kind: 'RevokeRefreshToken', refreshHash: 'r1', clientId: 'web', now: 999 }))).toEqual(['TokenRevoked', 'GrantRevoked']);
  });

  it('keeps the codes of a browser that renews silently for its live grants only, and still revokes what a recent code issued', () => {
    // A code every 300 s, its access token living 300 s, no refresh token: 300 renewals.
    const at = (i: number) => 100 + 300 * i;
    let events = started;
    for (let i = 1; i <= 300; i++) {
      const c = { ...code, grantId: `g${i}`, codeHash: `c${i}`, scope: ['openid'], expiresAt: at(i) + 60 };
      events = given(given(events).after({ kind: 'IssueCode', code: c })).after(redeem({ codeHash: `c${i}`, now: at(i), access: { ...access(`at${i}`), issuedAt: at(i), expiresAt: at(i) + 300 } }));
    }
    const s = given(events);
    let codes = 0;
    for (let link = s.state.redeemedCodes; link; link = link.next) codes++;
    expect(codes).toBeLessThan(70);
    const now = at(300) + 10;
    expect(types(s.when(redeem({ codeHash: 'c300', now })))).toEqual(['CodeReplayed', 'GrantRevoked']);
    // The code of a grant whose tokens expired long before is forgotten: refused as unknown, recorded nowhere.
    expect(s.refused(redeem({ codeHash: 'c1', now }))).toBe('code_invalid');
    // Logout lists the grants that may still have something alive.
    expect(s.when({ kind: 'EndSession', reason: 'logout', now: 100, requestedBy: 'web' })[0].data).toMatchObject({ grants: expect.arrayContaining([{ grantId: 'g300', clientId: 'web' }]) });
    expect((s.when({ kind: 'EndSession', reason: 'logout', now: 100, requestedBy: 'web' })[0].data as { grants: unknown[] }).grants.length).toBeLessThan(70);
  });

  it('drops the refresh tokens of grants that never rotate once they have expired', () => {
    // A code every 300 s, each earning a refresh token of 600 s that is never used.
    const at = (i: number) => 100 + 300 * i;
    let events = started;
    for (let i = 1; i <= 300; i++) {
      const c = { ...code, grantId: `g${i}`, codeHash: `c${i}`, expiresAt: at(i) + 60 };
      const redemption = redeem({ codeHash: `c${i}`, now: at(i), access: { ...access(`at${i}`), issuedAt: at(i), expiresAt: at(i) + 300 }, refresh: { hash: `t${i}`, expiresAt: at(i) + 600 } });
      events = given(given(events).after({ kind: 'IssueCode', code: c })).after(redemption);
    }
    const s = given(events);
    expect(kept(s.state).length).toBeLessThan(70);
    expect(types(s.when(rotate('t300', 'x', { now: at(300) + 10 })))).toEqual(['RefreshRotated', 'AccessTokenIssued']);
    expect(s.refused(rotate('t1', 'x', { now: at(300) + 10 }))).toBe('refresh_invalid');
  });

  it("keeps a code while its grant's refresh token lives, however old the code", () => {
    let events = redeemed;
    // r1 lives until 1000; rotations every 10 s keep the grant alive far beyond the code's own access token.
    for (let i = 1; i <= 200; i++) events = given(events).after(rotate(`r${i}`, `r${i + 1}`, { now: 200 + 10 * i, refresh: { hash: `r${i + 1}`, expiresAt: 2200 + 10 * i } }));
    // Then many silent renewals of another client: the first code's grant is still alive.
    for (let i = 1; i <= 200; i++) {
      const c = { ...code, grantId: `s${i}`, codeHash: `sc${i}`, clientId: 'spa', expiresAt: 2300 + i };
      events = given(given(events).after({ kind: 'IssueCode', code: c })).after(redeem({ codeHash: `sc${i}`, clientId: 'spa', now: 2250 + i, access: { ...access(`s${i}`), issuedAt: 2250 + i, expiresAt: 2260 + i }, refreshRule: 'never' }));
    }
    expect(types(given(events).when(redeem({ codeHash: 'c', now: 2500 })))).toEqual(['CodeReplayed', 'GrantRevoked']);
  });
});
