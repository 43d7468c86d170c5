import { FREE_FAILURES, LoginThrottle } from './login-throttle.js';

/** One attempt at `now` with a right or wrong password: the wait, or 0 when it ran. */
async function attempt(t: LoginThrottle, key: string, now: number, ok = false): Promise<number> {
  const r = await t.attempt(key, () => now, async () => ({ ok }));
  return 'wait' in r ? r.wait : 0;
}

describe('login throttle', () => {
  it('lets a username fail a few times, then makes each next attempt wait twice as long', async () => {
    const t = new LoginThrottle();
    for (let i = 0; i < FREE_FAILURES; i++) expect(await attempt(t, 'alice', 0)).toBe(0);
    expect(await attempt(t, 'alice', 0, true)).toBe(1000);
    expect(await attempt(t, 'alice', 999)).toBe(1);
    expect(await attempt(t, 'alice', 1000)).toBe(0);
    expect(await attempt(t, 'alice', 1000)).toBe(2000);
    expect(await attempt(t, 'alice', 3000)).toBe(0);
    expect(await attempt(t, 'alice', 3000)).toBe(4000);
    // Other usernames are not held up.
    expect(await attempt(t, 'bob', 3000)).toBe(0);
  });

  it('never makes a username wait more than 15 minutes, and forgets a count left alone for a day', async () => {
    const t = new LoginThrottle();
    let now = 0;
    for (let i = 0; i < 40; i++) {
      const wait = await attempt(t, 'alice', now);
      now += wait;
      if (wait) expect(await attempt(t, 'alice', now)).toBe(0);
    }
    expect(await attempt(t, 'alice', now)).toBe(15 * 60_000);
    expect(await attempt(t, 'alice', now + 24 * 3600_000)).toBe(0);
    expect(await attempt(t, 'alice', now + 24 * 3600_000)).toBe(0);
  });

  it('says when a key has used up its failures without waiting', async () => {
    const t = new LoginThrottle();
    for (let i = 0; i < FREE_FAILURES - 1; i++) await attempt(t, 'device', 0);
    expect(t.exhausted('device', 0)).toBe(false);
    await attempt(t, 'device', 0);
    expect(t.exhausted('device', 0)).toBe(true);
    expect(t.exhausted('device', 24 * 3600_000)).toBe(false);
  });

  it('clears the count on a success', async () => {
    const t = new LoginThrottle();
    for (let i = 0; i < FREE_FAILURES - 1; i++) await attempt(t, 'alice', 0);
    expect(await attempt(t, 'alice', 0, true)).toBe(0);
    for (let i = 0; i < FREE_FAILURES; i++) expect(await attempt(t, 'alice', 0)).toBe(0);
  });

  it('lets parallel attempts take turns: parallel guesses stop at the allowance, parallel right passwords all pass', async () => {
    const t = new LoginThrottle();
    const guesses = await Promise.all(Array.from({ length: 8 }, () => attempt(t, 'alice', 0)));
    expect(guesses.filter((w) => w === 0)).toHaveLength(FREE_FAILURES);
    const rights = await Promise.all(Array.from({ length: 32 }, () => attempt(t, 'bob', 0, true)));
    expect(rights.every((w) => w === 0)).toBe(true);
  });
});
