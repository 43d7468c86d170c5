import { createHash } from 'node:crypto';
import { types } from '../shared/decider-spec.js';
import { CHUNK_LENGTH, findRotated, NO_ROTATED, packRotated, type Rotated, RECORD_LENGTH, rotatedEntries, rotatedKey, rotatedRecord, rotatedRecords, withRotated } from './rotated-token-store.js';
import { sessionDecider } from './session.decider.js';
import { code, given, redeem, redeemed, rotate } from './session.fixtures.js';

/** `n` rotated tokens `t1`..`tn`, token `ti` expiring at 1000 + i, appended one by one as evolve does. */
const appended = (n: number): Rotated => {
  let r = NO_ROTATED;
  for (let i = 1; i <= n; i++) r = withRotated(r, rotatedRecord(`t${i}`, 1000 + i));
  return r;
};

describe('rotated-token store', () => {
  it('records a token in 24 characters: the last 16 of its hash (a short one led by dots) and its expiry in 8 hex digits', () => {
    const long = `0018c0ffee123.sha256:${'x'.repeat(27)}ABCDEFGHIJKLMNOP`;
    expect(rotatedRecord(long, 0x1234)).toBe('ABCDEFGHIJKLMNOP00001234');
    expect(rotatedRecord('r1', 1000)).toBe(`${'.'.repeat(14)}r1000003e8`);
    expect(rotatedRecord('r1', 1000)).toHaveLength(RECORD_LENGTH);
    // Expiries outside 32 bits are held at its bounds rather than spilling into the next record.
    expect(rotatedRecord('r1', -5).slice(16)).toBe('00000000');
    expect(rotatedRecord('r1', 2 ** 40).slice(16)).toBe('ffffffff');
  });

  it('fills chunks of 16 records, the full ones newest first, and finds each token in them', () => {
    const r = appended(40);
    expect(r.open).toHaveLength(8 * RECORD_LENGTH);
    expect(r.full!.item).toHaveLength(CHUNK_LENGTH);
    expect(r.full!.item.startsWith(rotatedKey('t17'))).toBe(true);
    expect(r.full!.next!.item.startsWith(rotatedKey('t1'))).toBe(true);
    expect(r.full!.next!.next).toBeNull();
    for (const i of [1, 16, 17, 32, 33, 40]) expect(findRotated(r, `t${i}`)).toBe(1000 + i);
    expect(findRotated(r, 't41')).toBeUndefined();
    expect(findRotated(NO_ROTATED, 't1')).toBeUndefined();
  });

  it('finds a key only where a record starts, never across two records', () => {
    const r = withRotated(NO_ROTATED, rotatedRecord('aaaaaaaabbbbbbbb', 1000));
    // 'bbbbbbbb000003e8' is in the chunk, eight characters into the record.
    expect(findRotated(r, 'bbbbbbbb000003e8')).toBeUndefined();
    expect(findRotated(r, 'aaaaaaaabbbbbbbb')).toBe(1000);
  });

  it('lists its records oldest first, and packs them back as appending them one by one would', () => {
    const r = appended(40);
    expect([...rotatedEntries(r)].map((e) => e.expiresAt)).toEqual(Array.from({ length: 40 }, (_, i) => 1001 + i));
    expect([...rotatedEntries(r)][0]).toEqual({ record: rotatedRecord('t1', 1001), key: rotatedKey('t1'), expiresAt: 1001 });
    expect(rotatedRecords(r)).toHaveLength(40 * RECORD_LENGTH);
    expect(packRotated(rotatedRecords(r))).toEqual(r);
    expect(packRotated('')).toEqual(NO_ROTATED);
    expect(packRotated(rotatedRecords(appended(32)))).toEqual(appended(32));
  });

  describe('in a session', () => {
    it('knows a rotated token by its digest, not by the time stamp its hash leads with', () => {
      // Hashes as the server writes them: `<stamp>.sha256:<digest>`; here two grants' tokens
      // minted in the same millisecond, and a made-up token of that millisecond.
      const stamp = (0x18c0ffee123).toString(16).padStart(12, '0');
      const hash = (value: string) => `${stamp}.sha256:${createHash('sha256').update(value).digest('base64url')}`;
      const [a1, a2, b1, b2] = ['a1', 'a2', 'b1', 'b2'].map(hash);
      let events = given(given(redeemed).after({ kind: 'IssueCode', code: { ...code, grantId: 'g2', codeHash: 'c2', clientId: 'spa' } })).after(
        redeem({ codeHash: 'c2', clientId: 'spa', refresh: { hash: b1, expiresAt: 2000 } }),
      );
      events = given(given(events).after(rotate('r1', a1))).after(rotate(a1, a2));
      events = given(events).after(rotate(b1, b2, { clientId: 'spa' }));
      const s = given(events);
      expect(s.refused(rotate(hash('forged'), 'x', { clientId: 'spa' }))).toBe('refresh_invalid');
      expect(s.when({ kind: 'RevokeRefreshToken', refreshHash: hash('forged'), clientId: 'spa', now: 200 })).toEqual([]);
      expect(s.when(rotate(b1, 'x', { clientId: 'spa' }))).toEqual([
        { type: 'RefreshReplayed', data: expect.objectContaining({ grantId: 'g2', clientId: 'spa' }) },
        { type: 'SessionRevoked', data: expect.anything() },
      ]);
      expect(s.when(rotate(a1, 'x'))[0]).toMatchObject({ type: 'RefreshReplayed', data: { grantId: 'g' } });
    });

    it("keeps each grant's rotated tokens apart, and a rotated token costs the session a record of 24 characters", () => {
      // A second grant of the same session, from another code, rotating alongside the first.
      let events = given(given(redeemed).after({ kind: 'IssueCode', code: { ...code, grantId: 'g2', codeHash: 'c2', clientId: 'web' } })).after(
        redeem({ codeHash: 'c2', refresh: { hash: 'q1', expiresAt: 2000 } }),
      );
      for (let i = 1; i <= 200; i++) {
        events = given(events).after(rotate(`r${i}`, `r${i + 1}`));
        events = given(events).after(rotate(`q${i}`, `q${i + 1}`));
      }
      const s = given(events);
      expect(types(s.when(rotate('q7', 'x')))).toEqual(['RefreshReplayed', 'SessionRevoked']);
      expect(s.when(rotate('q7', 'x'))[0].data).toMatchObject({ grantId: 'g2' });
      expect(s.when(rotate('r7', 'x'))[0].data).toMatchObject({ grantId: 'g' });
      expect(types(s.when(rotate('q201', 'x')))).toEqual(['RefreshRotated', 'AccessTokenIssued']);
      const saved = JSON.stringify(sessionDecider.snapshot!.encode(s.state));
      expect(saved.length).toBeLessThan(400 * 24 + 2000);
    });
  });
});
