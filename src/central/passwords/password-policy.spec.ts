import { passwordProblem } from './password-policy.js';

const alice = { username: 'Alice', email: 'Alice@Example.com' };

describe('password policy', () => {
  it('accepts a long, uncommon password', () => {
    expect(passwordProblem('correct horse battery staple', alice, 8)).toBeUndefined();
    expect(passwordProblem('Tr0ub4dor&3x', alice, 8)).toBeUndefined();
  });

  it('refuses a password shorter than the minimum, counted in characters', () => {
    expect(passwordProblem('xkcd-93', alice, 8)).toBe('must be at least 8 characters');
    expect(passwordProblem('xkcd-936', alice, 8)).toBeUndefined();
    // Eight characters in twelve UTF-16 units: counted as eight.
    expect(passwordProblem('😀😀😀😀abcd', alice, 9)).toBe('must be at least 9 characters');
  });

  it('refuses the username and the e-mail address, whatever the case', () => {
    expect(passwordProblem('ALICE', { username: 'alice' }, 1)).toBe('must not be the username');
    expect(passwordProblem('alice@example.com', alice, 8)).toBe('must not be the e-mail address');
  });

  it('refuses the common passwords, whatever the case, and them followed by digits and punctuation', () => {
    for (const p of ['password', 'PassWord123', 'qwerty123!', 'iloveyou', 'dragon2024', 'letmein!!', '12345678', 'Summer2025', 'p@ssw0rd!']) {
      expect([p, passwordProblem(p, alice, 8)]).toEqual([p, 'is too common (it is on the list of the most used passwords)']);
    }
    // A common word inside a longer phrase is no common password.
    expect(passwordProblem('password manager of mine', alice, 8)).toBeUndefined();
  });
});
