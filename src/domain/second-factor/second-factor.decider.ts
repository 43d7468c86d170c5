import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { SecondFactorEvent } from './second-factor.events.js';

/** Wrong answers one e-mail code takes before it is dead. */
export const EMAIL_CODE_ATTEMPTS = 5;
/** Passkeys one user may register. */
export const MAX_PASSKEYS = 20;

/**
 * A user's second factors, decided on their own stream. The TOTP step and recovery-code
 * checks are made by the caller (they need the opened secret and the keyed hashes); what is
 * decided here is what must be single: a step is used once, a recovery code once, an e-mail
 * code once and within its attempts and lifetime, a passkey's counter only forwards. The
 * signatures of passkeys are verified by the caller too (`@simplewebauthn/server`).
 */
export type SecondFactorCommand =
  | { kind: 'EnrolTotp'; tenantId: string; userId: string; sealedTotpSecret: string; recoveryCodeHashes: string[]; step: number }
  | { kind: 'AcceptTotp'; tenantId: string; userId: string; step: number }
  | { kind: 'UseRecoveryCode'; tenantId: string; userId: string; recoveryCodeHash: string }
  | { kind: 'RecordFailure'; tenantId: string; userId: string; factor: 'totp' | 'recovery_code' | 'webauthn' }
  | { kind: 'SendEmailCode'; tenantId: string; userId: string; emailCodeHash: string; expiresAt: number }
  /** The keyed hash of the answer typed: equal to the pending code's when it is right. */
  | { kind: 'AnswerEmailCode'; tenantId: string; userId: string; emailCodeHash: string; now: number }
  /**
   * A registration the caller verified (`@simplewebauthn/server`): the credential becomes the
   * user's, with the recovery codes offered when the user has neither an app nor codes yet.
   */
  | { kind: 'RegisterPasskey'; tenantId: string; userId: string; passkey: Passkey; recoveryCodeHashes?: string[] }
  /** An assertion the caller verified with the stored key: its counter is checked here, on the stream. */
  | { kind: 'UsePasskey'; tenantId: string; userId: string; credentialId: string; counter: number }
  | { kind: 'ResetSecondFactors'; tenantId: string; userId: string };

/** A registered passkey as kept on the stream (see PasskeyRegistered). */
export interface Passkey {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports?: string[];
  multiDevice: boolean;
}

export interface SecondFactorState {
  sealedTotpSecret?: string;
  /** The last step a TOTP code was accepted for. */
  lastStep?: number;
  recoveryCodeHashes: string[];
  email?: { codeHash: string; expiresAt: number; attempts: number };
  passkeys: Passkey[];
}

export const secondFactorDecider: Decider<SecondFactorCommand, SecondFactorEvent, SecondFactorState> = {
  initialState: { recoveryCodeHashes: [], passkeys: [] },
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
      case 'RegisterPasskey':
        if (s.passkeys.some((p) => p.credentialId === c.passkey.credentialId)) throw new DomainError('already_exists', 'this passkey is registered already');
        if (s.passkeys.length >= MAX_PASSKEYS) throw new DomainError('invalid_value', `at most ${MAX_PASSKEYS} passkeys per user`);
        // Recovery codes only for a user who has none: an app's codes are not replaced.
        if (c.recoveryCodeHashes?.length && !s.sealedTotpSecret && s.recoveryCodeHashes.length === 0) {
          return [{ type: 'PasskeyRegistered', data: { ...of, ...c.passkey, recoveryCodeHashes: c.recoveryCodeHashes } }];
        }
        return [{ type: 'PasskeyRegistered', data: { ...of, ...c.passkey } }];
      case 'UsePasskey': {
        const key = s.passkeys.find((p) => p.credentialId === c.credentialId);
        if (!key) throw new DomainError('not_found', 'no such passkey for this user');
        // WebAuthn Level 3 §6.1.1: a counter that does not grow, where either side kept one, may be a cloned authenticator.
        if ((c.counter > 0 || key.counter > 0) && c.counter <= key.counter) throw new DomainError('code_replayed', 'the passkey signature counter went backwards');
        return [{ type: 'PasskeyUsed', data: { ...of, credentialId: c.credentialId, counter: c.counter } }];
      }
      case 'ResetSecondFactors':
        if (!s.sealedTotpSecret && s.passkeys.length === 0 && s.recoveryCodeHashes.length === 0 && !s.email) return [];
        return [{ type: 'SecondFactorsReset', data: { ...of, totp: s.sealedTotpSecret !== undefined, passkeys: s.passkeys.length } }];
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
      case 'PasskeyRegistered': {
        const { tenantId: _t, userId: _u, recoveryCodeHashes, ...passkey } = e.data;
        return { ...s, passkeys: [...s.passkeys, passkey], ...(recoveryCodeHashes ? { recoveryCodeHashes } : {}) };
      }
      case 'PasskeyUsed':
        return { ...s, passkeys: s.passkeys.map((p) => (p.credentialId === e.data.credentialId ? { ...p, counter: e.data.counter } : p)) };
      case 'SecondFactorsReset':
        return { recoveryCodeHashes: [], passkeys: [] };
      default:
        return assertNever(e);
    }
  },
};
