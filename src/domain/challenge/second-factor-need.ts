import type { ChallengesDefinition, Factor, FactorPolicy } from './challenges.events.js';

/**
 * What a user must still prove after the password, for one client:
 * - `none`: the password is enough;
 * - `enrol-totp`: set up an authenticator app first (its first code proves the factor);
 * - `prove`: answer one of `factors` (`totp` also takes a recovery code);
 * - `unavailable`: a second factor is required but the user has none the tenant allows (no
 *   e-mail address for `email_otp`, TOTP off): the sign-in cannot complete.
 */
export type SecondFactorNeed = { kind: 'none' } | { kind: 'enrol-totp' } | { kind: 'prove'; factors: Factor[] } | { kind: 'unavailable' };

/** The client's policy of each factor: its override, else the tenant's, else off. */
export function policyFor(definition: ChallengesDefinition | undefined, clientId: string): Record<Factor, FactorPolicy> {
  const own = definition?.clients[clientId] ?? {};
  const tenant = definition?.factors ?? {};
  return { totp: own.totp ?? tenant.totp ?? 'off', email_otp: own.email_otp ?? tenant.email_otp ?? 'off' };
}

/**
 * `required` asks every sign-in for a second factor; `optional` asks the users who have it
 * (an enrolled app; e-mail codes are offered, not forced); `acr_values` asking for
 * multi-factor acts as `required` for the factors that are not `off`.
 */
export function secondFactorNeed(policy: Record<Factor, FactorPolicy>, user: { totpEnrolled: boolean; hasEmail: boolean }, mfaRequested: boolean): SecondFactorNeed {
  const usable: Factor[] = [];
  if (policy.totp !== 'off' && user.totpEnrolled) usable.push('totp');
  if (policy.email_otp !== 'off' && user.hasEmail) usable.push('email_otp');
  const required = policy.totp === 'required' || policy.email_otp === 'required' || (mfaRequested && (policy.totp !== 'off' || policy.email_otp !== 'off'));
  const chosen = policy.totp === 'optional' && user.totpEnrolled;
  if (!required && !chosen) return { kind: 'none' };
  // A required app not set up yet: set up now, unless e-mail codes are as good for this client.
  if (policy.totp === 'required' && !user.totpEnrolled) return { kind: 'enrol-totp' };
  if (usable.length > 0) return { kind: 'prove', factors: usable };
  if (policy.totp !== 'off') return { kind: 'enrol-totp' };
  return { kind: 'unavailable' };
}
