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
/** A wrong TOTP or recovery code, or a passkey's assertion refused (also counted by the sign-in limits). */
export type SecondFactorFailed = DomainEvent<'SecondFactorFailed', Of & { factor: 'totp' | 'recovery_code' | 'webauthn' }>;

/**
 * A passkey registered (WebAuthn): its credential id and COSE public key, base64url (neither is
 * a secret: the key only verifies), the signature counter it started at, its transports, and
 * whether it may be synced to other devices (`multiDevice`, the backup-eligible flag); for a
 * user who had no recovery codes, the keyed hashes of those shown once.
 */
export type PasskeyRegistered = DomainEvent<
  'PasskeyRegistered',
  Of & { credentialId: string; publicKey: string; counter: number; transports?: string[]; multiDevice: boolean; recoveryCodeHashes?: string[] }
>;
/** A passkey's assertion was accepted, with the signature counter the authenticator reported. */
export type PasskeyUsed = DomainEvent<'PasskeyUsed', Of & { credentialId: string; counter: number }>;
/**
 * Every second factor of the user removed (by the actor in the metadata): the app's secret,
 * the recovery codes, the passkeys, a pending e-mail code. What was removed, counted.
 */
export type SecondFactorsReset = DomainEvent<'SecondFactorsReset', Of & { totp: boolean; passkeys: number }>;

export type SecondFactorEvent =
  | TotpEnrolled
  | TotpCodeAccepted
  | RecoveryCodeUsed
  | EmailCodeSent
  | EmailCodeAccepted
  | EmailCodeFailed
  | SecondFactorFailed
  | PasskeyRegistered
  | PasskeyUsed
  | SecondFactorsReset;
