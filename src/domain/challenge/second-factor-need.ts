import { type ChallengesDefinition, FACTORS, type Factor, type FactorPolicy } from './challenges.events.js';

/**
 * What a user must still prove after the password, for one client:
 * - `none`: the password is enough;
 * - `enrol-totp`: set up an authenticator app first (its first code proves the factor);
 * - `enrol-webauthn`: register a passkey first (its registration proves the factor);
 * - `prove`: answer one of `factors` (`totp` also takes a recovery code); with `thenEnrol`, a
 *   required app or passkey the user lacks is set up right after that proof;
 * - `unavailable`: a second factor is required but the user has none the tenant allows (no
 *   e-mail address for `email_otp`, TOTP and passkeys off): the sign-in cannot complete.
 */
export type SecondFactorNeed = { kind: 'none' } | { kind: 'enrol-totp' } | { kind: 'enrol-webauthn' } | { kind: 'prove'; factors: Factor[]; thenEnrol?: EnrolledFactor } | { kind: 'unavailable' };

/** The factors a user sets up (an e-mail address is the user's already). */
export type EnrolledFactor = 'totp' | 'webauthn';

/** Each factor's policy; a factor left out is off. */
export type FactorPolicyOf = Partial<Record<Factor, FactorPolicy>>;

/** What the user has: an authenticator app, an e-mail address, a passkey. */
export interface UserFactors {
  totpEnrolled: boolean;
  hasEmail: boolean;
  webauthnEnrolled?: boolean;
}

/** The client's policy of each factor: its override, else the tenant's, else off. */
export function policyFor(definition: ChallengesDefinition | undefined, clientId: string): Record<Factor, FactorPolicy> {
  const own = definition?.clients[clientId] ?? {};
  const tenant = definition?.factors ?? {};
  return { totp: own.totp ?? tenant.totp ?? 'off', email_otp: own.email_otp ?? tenant.email_otp ?? 'off', webauthn: own.webauthn ?? tenant.webauthn ?? 'off' };
}

/**
 * `required` asks every sign-in for a second factor; `optional` asks the users who have it
 * (an enrolled app or passkey; e-mail codes are offered, not forced); `acr_values` asking for
 * multi-factor acts as `required` for the factors that are not `off`.
 */
export function secondFactorNeed(policy: FactorPolicyOf, user: UserFactors, mfaRequested: boolean): SecondFactorNeed {
  const of = (f: Factor): FactorPolicy => policy[f] ?? 'off';
  const webauthnEnrolled = user.webauthnEnrolled === true;
  const usable: Factor[] = [];
  if (of('totp') !== 'off' && user.totpEnrolled) usable.push('totp');
  if (of('webauthn') !== 'off' && webauthnEnrolled) usable.push('webauthn');
  if (of('email_otp') !== 'off' && user.hasEmail) usable.push('email_otp');
  const anyOn = FACTORS.some((f) => of(f) !== 'off');
  const required = FACTORS.some((f) => of(f) === 'required') || (mfaRequested && anyOn);
  const chosen = (of('totp') === 'optional' && user.totpEnrolled) || (of('webauthn') === 'optional' && webauthnEnrolled);
  if (!required && !chosen) return { kind: 'none' };
  // A required app or passkey not set up yet is set up in this sign-in; but a user who can
  // already prove a factor proves it first, so that a password alone never adds a factor.
  const missing: EnrolledFactor | undefined = of('totp') === 'required' && !user.totpEnrolled ? 'totp' : of('webauthn') === 'required' && !webauthnEnrolled ? 'webauthn' : undefined;
  if (usable.length > 0) return missing ? { kind: 'prove', factors: usable, thenEnrol: missing } : { kind: 'prove', factors: usable };
  if (missing) return { kind: missing === 'totp' ? 'enrol-totp' : 'enrol-webauthn' };
  if (of('totp') !== 'off') return { kind: 'enrol-totp' };
  if (of('webauthn') !== 'off') return { kind: 'enrol-webauthn' };
  return { kind: 'unavailable' };
}
