import { setBounded } from './bounded-map.js';

describe('setBounded', () => {
  it('keeps at most the limit, dropping the oldest first', () => {
    const map = new Map<number, number>();
    for (let i = 0; i < 100; i++) setBounded(map, i, i, 32);
    expect(map.size).toBeLessThanOrEqual(32);
    expect(map.has(99)).toBe(true);
    expect(map.has(0)).toBe(false);
    const kept = [...map.keys()];
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
    expect(kept[kept.length - 1]).toBe(99);
  });

  it('moves a key that is set again to the newest place', () => {
    const map = new Map<string, number>();
    for (const k of ['a', 'b', 'c']) setBounded(map, k, 1, 3);
    setBounded(map, 'a', 2, 3);
    expect([...map.entries()]).toEqual([['b', 1], ['c', 1], ['a', 2]]);
    setBounded(map, 'd', 1, 3);
    expect(map.has('b')).toBe(false);
    expect(map.get('a')).toBe(2);
  });

  it('works with a limit of one', () => {
    const map = new Map<string, number>();
    setBounded(map, 'a', 1, 1);
    setBounded(map, 'b', 2, 1);
    expect([...map.entries()]).toEqual([['b', 2]]);
  });
});
