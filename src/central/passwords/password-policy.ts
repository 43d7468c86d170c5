import { COMMON_PASSWORDS } from './common-passwords.js';

const COMMON = new Set(COMMON_PASSWORDS.split('\n').filter(Boolean));
/** What may follow a common password and still leave it common: digits and punctuation. */
const TRAILER = /^(.*?)[\d\p{P}\p{S}]+$/u;

/** Who the password is for: it must not be their username or e-mail address. */
export interface PasswordOwner {
  username: string;
  email?: string;
}

/**
 * The rules every new password meets (NIST SP 800-63B §5.1.1.2), for whatever sets one: the
 * bootstrap file, the user-creation command, later the admin API and registration. Returns what
 * is wrong, phrased to follow the field's name (`password: must be ...`), or undefined.
 */
export function passwordProblem(password: string, owner: PasswordOwner, minLength: number): string | undefined {
  // Counted in code points, as a person counts characters (a surrogate pair is one).
  if ([...password].length < minLength) return `must be at least ${minLength} characters`;
  const lower = password.toLowerCase();
  if (lower === owner.username.toLowerCase()) return 'must not be the username';
  if (owner.email && lower === owner.email.toLowerCase()) return 'must not be the e-mail address';
  const stem = TRAILER.exec(lower)?.[1];
  if (COMMON.has(lower) || (stem !== undefined && COMMON.has(stem))) return 'is too common (it is on the list of the most used passwords)';
  return undefined;
}
