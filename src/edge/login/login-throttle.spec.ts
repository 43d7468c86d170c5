import { FREE_FAILURES, LoginThrottle } from './login-throttle.js';

describe('login throttle', () => {
  it('lets a username fail a few times, then makes each next attempt wait twice as long', () => {
    const t = new LoginThrottle();
    for (let i = 0; i < FREE_FAILURES; i++) expect(t.attempt('alice', 0)).toBe(0);
    expect(t.attempt('alice', 0)).toBe(1000);
    expect(t.attempt('alice', 999)).toBe(1);
    expect(t.attempt('alice', 1000)).toBe(0);
    expect(t.attempt('alice', 1000)).toBe(2000);
    expect(t.attempt('alice', 3000)).toBe(0);
    expect(t.attempt('alice', 3000)).toBe(4000);
    // Other usernames are not held up.
    expect(t.attempt('bob', 3000)).toBe(0);
  });

  it('never makes a username wait more than 15 minutes, and forgets a count left alone for a day', () => {
    const t = new LoginThrottle();
    let now = 0;
    for (let i = 0; i < 40; i++) {
      const wait = t.attempt('alice', now);
      now += wait;
      if (wait) expect(t.attempt('alice', now)).toBe(0);
    }
    expect(t.attempt('alice', now)).toBe(15 * 60_000);
    expect(t.attempt('alice', now + 24 * 3600_000)).toBe(0);
    expect(t.attempt('alice', now + 24 * 3600_000)).toBe(0);
  });

  it('clears the count on a success', () => {
    const t = new LoginThrottle();
    for (let i = 0; i < FREE_FAILURES; i++) t.attempt('alice', 0);
    t.succeeded('alice');
    expect(t.attempt('alice', 0)).toBe(0);
  });
});
