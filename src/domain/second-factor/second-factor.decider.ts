import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { SecondFactorEvent } from './second-factor.events.js';

/** Wrong answers one e-mail code takes before it is dead. */
export const EMAIL_CODE_ATTEMPTS = 5;

/**
 * A user's second factors, decided on their own stream. The TOTP step and recovery-code
 * checks are made by the caller (they need the opened secret and the keyed hashes); what is
 * decided here is what must be single: a step is used once, a recovery code once, an e-mail
 * code once and within its attempts and lifetime.
 */
export type SecondFactorCommand =
  | { kind: 'EnrolTotp'; tenantId: string; userId: string; sealedTotpSecret: string; recoveryCodeHashes: string[]; step: number }
  | { kind: 'AcceptTotp'; tenantId: string; userId: string; step: number }
  | { kind: 'UseRecoveryCode'; tenantId: string; userId: string; recoveryCodeHash: string }
  | { kind: 'RecordFailure'; tenantId: string; userId: string; factor: 'totp' | 'recovery_code' }
  | { kind: 'SendEmailCode'; tenantId: string; userId: string; emailCodeHash: string; expiresAt: number }
  /** The keyed hash of the answer typed: equal to the pending code's when it is right. */
  | { kind: 'AnswerEmailCode'; tenantId: string; userId: string; emailCodeHash: string; now: number };

export interface SecondFactorState {
  sealedTotpSecret?: string;
  /** The last step a TOTP code was accepted for. */
  lastStep?: number;
  recoveryCodeHashes: string[];
  email?: { codeHash: string; expiresAt: number; attempts: number };
}

export const secondFactorDecider: Decider<SecondFactorCommand, SecondFactorEvent, SecondFactorState> = {
  initialState: { recoveryCodeHashes: [] },
  decide(c, s) {
    const of = { tenantId: c.tenantId, userId: c.userId };
    switch (c.kind) {
      case 'EnrolTotp':
        if (s.sealedTotpSecret) throw new DomainError('already_exists', 'the user has an authenticator app already');
        return [{ type: 'TotpEnrolled', data: { ...of, sealedTotpSecret: c.sealedTotpSecret, recoveryCodeHashes: c.recoveryCodeHashes, step: c.step } }];
      case 'AcceptTotp':
        if (!s.sealedTotpSecret) throw new DomainError('not_found', 'the user has no authenticator app');
        // RFC 6238 §5.2: a code is not accepted a second time once one was; a later step moves past it.
        if (s.lastStep !== undefined && c.step <= s.lastStep) throw new DomainError('code_replayed', 'this code was used already');
        return [{ type: 'TotpCodeAccepted', data: { ...of, step: c.step } }];
      case 'UseRecoveryCode':
        if (!s.recoveryCodeHashes.includes(c.recoveryCodeHash)) throw new DomainError('code_invalid', 'no such recovery code, or it was used');
        return [{ type: 'RecoveryCodeUsed', data: { ...of, recoveryCodeHash: c.recoveryCodeHash } }];
      case 'RecordFailure':
        return [{ type: 'SecondFactorFailed', data: { ...of, factor: c.factor } }];
      case 'SendEmailCode':
        return [{ type: 'EmailCodeSent', data: { ...of, emailCodeHash: c.emailCodeHash, expiresAt: c.expiresAt } }];
      case 'AnswerEmailCode': {
        const e = s.email;
        if (!e || c.now >= e.expiresAt || e.attempts >= EMAIL_CODE_ATTEMPTS) throw new DomainError('code_invalid', 'no e-mail code is pending: ask for a new one');
        if (c.emailCodeHash !== e.codeHash) return [{ type: 'EmailCodeFailed', data: { ...of, attempts: e.attempts + 1 } }];
        return [{ type: 'EmailCodeAccepted', data: of }];
      }
      default:
        return assertNever(c);
    }
  },
  evolve(s, e) {
    switch (e.type) {
      case 'TotpEnrolled':
        return { ...s, sealedTotpSecret: e.data.sealedTotpSecret, recoveryCodeHashes: e.data.recoveryCodeHashes, lastStep: e.data.step };
      case 'TotpCodeAccepted':
        return { ...s, lastStep: e.data.step };
      case 'RecoveryCodeUsed':
        return { ...s, recoveryCodeHashes: s.recoveryCodeHashes.filter((h) => h !== e.data.recoveryCodeHash) };
      case 'EmailCodeSent':
        return { ...s, email: { codeHash: e.data.emailCodeHash, expiresAt: e.data.expiresAt, attempts: 0 } };
      case 'EmailCodeFailed':
        return s.email ? { ...s, email: { ...s.email, attempts: e.data.attempts } } : s;
      case 'EmailCodeAccepted': {
        const { email: _spent, ...rest } = s;
        return rest;
      }
      case 'SecondFactorFailed':
        return s;
      default:
        return assertNever(e);
    }
  },
};
