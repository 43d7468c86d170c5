import type { DomainEvent } from '../shared/decider.js';

interface Of {
  tenantId: string;
  userId: string;
}

/**
 * A user's authenticator app, confirmed by a first code: its secret sealed with the
 * key-encryption key (never in usable form), and the keyed hashes of the recovery codes shown once.
 */
export type TotpEnrolled = DomainEvent<'TotpEnrolled', Of & { sealedTotpSecret: string; recoveryCodeHashes: string[]; step: number }>;
/** A code of this step was accepted: no code of it or an earlier step is accepted again (RFC 6238 §5.2). */
export type TotpCodeAccepted = DomainEvent<'TotpCodeAccepted', Of & { step: number }>;
/** A recovery code was used in place of a code; it is spent. */
export type RecoveryCodeUsed = DomainEvent<'RecoveryCodeUsed', Of & { recoveryCodeHash: string }>;
/** An e-mail code was sent: its keyed hash and when it stops counting (seconds). */
export type EmailCodeSent = DomainEvent<'EmailCodeSent', Of & { emailCodeHash: string; expiresAt: number }>;
export type EmailCodeAccepted = DomainEvent<'EmailCodeAccepted', Of>;
/** A wrong answer to the e-mail code; past the last allowed one, the code is dead. */
export type EmailCodeFailed = DomainEvent<'EmailCodeFailed', Of & { attempts: number }>;
/** A wrong TOTP or recovery code (also counted by the sign-in limits). */
export type SecondFactorFailed = DomainEvent<'SecondFactorFailed', Of & { factor: 'totp' | 'recovery_code' }>;

export type SecondFactorEvent = TotpEnrolled | TotpCodeAccepted | RecoveryCodeUsed | EmailCodeSent | EmailCodeAccepted | EmailCodeFailed | SecondFactorFailed;
