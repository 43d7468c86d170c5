import { types } from '../shared/decider-spec.js';
import { sessionDecider } from './session.decider.js';
import { code, given, redeem, redeemed, rotate } from './session.fixtures.js';

describe('session snapshot', () => {
  it('is version 13: the state shape it saves', () => {
    expect(sessionDecider.snapshot!.version).toBe(13);
  });

  it('saves chains as arrays and rotated tokens as their records, and reads them back', () => {
    const codec = sessionDecider.snapshot!;
    expect(codec.decode(JSON.parse(JSON.stringify(codec.encode(sessionDecider.initialState))))).toEqual(sessionDecider.initialState);
    let events = redeemed;
    for (let i = 1; i <= 20; i++) events = given(events).after(rotate(`r${i}`, `r${i + 1}`));
    const saved = codec.encode(given(events).state) as { redeemedCodes: unknown; refresh: Array<{ rotated: unknown }> };
    expect(saved.redeemedCodes).toEqual([expect.objectContaining({ codeHash: 'c', redeemed: true })]);
    expect(saved.refresh).toHaveLength(1);
    expect(saved.refresh[0].rotated).toEqual(expect.any(String));
    expect((saved.refresh[0].rotated as string).length).toBe(20 * 24);
  });

  it('saves its state as plain JSON and folds on from a saved state as from the events', () => {
    // A session with a used code, a replayed one, a sign-in again and enough rotations to be compacted.
    let events = given(given(redeemed).after({ kind: 'Reauthenticate', userId: 'u', presentedCookieHash: 'h', cookieHash: 'h2', now: 150 })).after({
      kind: 'IssueCode',
      code: { ...code, grantId: 'g2', codeHash: 'c2' },
    });
    events = given(given(events).after(redeem({ codeHash: 'c2', refresh: { hash: 'q1', expiresAt: 1000 } }))).after(redeem({ codeHash: 'c2' }));
    const at = (i: number) => ({ now: 200 + 10 * i, refresh: { hash: `r${i + 1}`, expiresAt: 300 + 10 * i } });
    for (let i = 1; i <= 150; i++) events = given(events).after(rotate(`r${i}`, `r${i + 1}`, at(i)));
    const codec = sessionDecider.snapshot!;
    const restore = (n: number) => codec.decode(JSON.parse(JSON.stringify(codec.encode(given(events.slice(0, n)).state))));
    for (const n of [5, 12, 100, events.length]) {
      expect(restore(n)).toEqual(given(events.slice(0, n)).state);
      expect(events.slice(n).reduce(sessionDecider.evolve, restore(n))).toEqual(given(events).state);
    }
    const s = given(events, restore(events.length));
    expect(types(s.when(rotate('r151', 'x', { now: at(150).now })))).toEqual(['RefreshRotated', 'AccessTokenIssued']);
    expect(types(s.when(rotate('r149', 'x', { now: at(150).now })))).toEqual(['RefreshReplayed', 'SessionRevoked']);
    expect(types(s.when(redeem({ codeHash: 'c' })))).toEqual(['CodeReplayed', 'GrantRevoked']);
  });
});
