import { given } from '../shared/decider-spec.js';
import { EMAIL_CODE_ATTEMPTS, type SecondFactorCommand, secondFactorDecider } from './second-factor.decider.js';

const of = { tenantId: 't', userId: 'u1' };
const enrol: SecondFactorCommand = { kind: 'EnrolTotp', ...of, sealedTotpSecret: 'v2.sealed', recoveryCodeHashes: ['r1', 'r2'], step: 100 };
const accept = (step: number): SecondFactorCommand => ({ kind: 'AcceptTotp', ...of, step });
const enrolled = given(secondFactorDecider).after(enrol);

describe('second factor decider', () => {
  it('enrols an authenticator app once, the confirming step counting as used', () => {
    expect(given(secondFactorDecider).when(enrol)).toEqual([{ type: 'TotpEnrolled', data: { ...of, sealedTotpSecret: 'v2.sealed', recoveryCodeHashes: ['r1', 'r2'], step: 100 } }]);
    expect(given(secondFactorDecider, enrolled).refused(enrol)).toBe('already_exists');
    expect(given(secondFactorDecider, enrolled).refused(accept(100))).toBe('code_replayed');
  });

  it('accepts a step once, and no earlier one after it (RFC 6238 §5.2)', () => {
    const s = given(secondFactorDecider, enrolled);
    expect(s.when(accept(101))).toEqual([{ type: 'TotpCodeAccepted', data: { ...of, step: 101 } }]);
    const after = given(secondFactorDecider, s.after(accept(101)));
    expect(after.refused(accept(101))).toBe('code_replayed');
    expect(after.refused(accept(99))).toBe('code_replayed');
    expect(after.refused(accept(102))).toBe('no error');
    expect(given(secondFactorDecider).refused(accept(1))).toBe('not_found');
  });

  it('spends each recovery code once', () => {
    const s = given(secondFactorDecider, enrolled);
    const use: SecondFactorCommand = { kind: 'UseRecoveryCode', ...of, recoveryCodeHash: 'r1' };
    expect(s.when(use)).toEqual([{ type: 'RecoveryCodeUsed', data: { ...of, recoveryCodeHash: 'r1' } }]);
    const spent = given(secondFactorDecider, s.after(use));
    expect(spent.refused(use)).toBe('code_invalid');
    expect(spent.refused({ ...use, recoveryCodeHash: 'r2' })).toBe('no error');
    expect(s.refused({ ...use, recoveryCodeHash: 'nope' })).toBe('code_invalid');
  });

  describe('e-mail codes', () => {
    const send: SecondFactorCommand = { kind: 'SendEmailCode', ...of, emailCodeHash: 'h', expiresAt: 400 };
    const answer = (emailCodeHash: string, now = 300): SecondFactorCommand => ({ kind: 'AnswerEmailCode', ...of, emailCodeHash, now });
    const sent = given(secondFactorDecider).after(send);

    it('accepts the code once, before it expires', () => {
      const s = given(secondFactorDecider, sent);
      expect(s.when(answer('h'))).toEqual([{ type: 'EmailCodeAccepted', data: of }]);
      expect(given(secondFactorDecider, s.after(answer('h'))).refused(answer('h'))).toBe('code_invalid');
      expect(s.refused(answer('h', 400))).toBe('code_invalid');
      expect(given(secondFactorDecider).refused(answer('h'))).toBe('code_invalid');
    });

    it('counts wrong answers, and the code dies after the last one allowed', () => {
      let events = sent;
      for (let i = 1; i <= EMAIL_CODE_ATTEMPTS; i++) {
        const decided = given(secondFactorDecider, events).when(answer('wrong'));
        expect(decided).toEqual([{ type: 'EmailCodeFailed', data: { ...of, attempts: i } }]);
        events = [...events, ...decided];
      }
      expect(given(secondFactorDecider, events).refused(answer('h'))).toBe('code_invalid');
      expect(given(secondFactorDecider, [...events, ...given(secondFactorDecider).when(send)]).when(answer('h'))[0].type).toBe('EmailCodeAccepted');
    });
  });

  describe('passkeys', () => {
    const passkey = { credentialId: 'cred-1', publicKey: 'pk', counter: 0, transports: ['internal'], multiDevice: false };
    const register: SecondFactorCommand = { kind: 'RegisterPasskey', ...of, passkey };
    const use = (counter: number, credentialId = 'cred-1'): SecondFactorCommand => ({ kind: 'UsePasskey', ...of, credentialId, counter });
    const registered = given(secondFactorDecider).after(register);

    it('registers a credential once, and knows no other', () => {
      expect(given(secondFactorDecider).when(register)).toEqual([{ type: 'PasskeyRegistered', data: { ...of, ...passkey } }]);
      expect(given(secondFactorDecider, registered).refused(register)).toBe('already_exists');
      expect(given(secondFactorDecider, registered).refused(use(1, 'cred-2'))).toBe('not_found');
    });

    it('gives recovery codes with a passkey to a user who has none, and keeps an app\'s', () => {
      const withCodes: SecondFactorCommand = { ...register, recoveryCodeHashes: ['p1'] } as SecondFactorCommand;
      expect(given(secondFactorDecider).when(withCodes)).toEqual([{ type: 'PasskeyRegistered', data: { ...of, ...passkey, recoveryCodeHashes: ['p1'] } }]);
      const s = given(secondFactorDecider, given(secondFactorDecider).after(withCodes));
      expect(s.refused({ kind: 'UseRecoveryCode', ...of, recoveryCodeHash: 'p1' })).toBe('no error');
      expect(given(secondFactorDecider, enrolled).when(withCodes)).toEqual([{ type: 'PasskeyRegistered', data: { ...of, ...passkey } }]);
      expect(given(secondFactorDecider, given(secondFactorDecider, enrolled).after(withCodes)).state.recoveryCodeHashes).toEqual(['r1', 'r2']);
    });

    it('refuses a counter that does not grow, once either side kept one', () => {
      const s = given(secondFactorDecider, registered);
      expect(s.when(use(0))).toEqual([{ type: 'PasskeyUsed', data: { ...of, credentialId: 'cred-1', counter: 0 } }]);
      const counted = given(secondFactorDecider, s.after(use(5)));
      expect(counted.refused(use(5))).toBe('code_replayed');
      expect(counted.refused(use(4))).toBe('code_replayed');
      expect(counted.refused(use(0))).toBe('code_replayed');
      expect(counted.refused(use(6))).toBe('no error');
    });

    it('a reset removes the app, recovery codes, passkeys and a pending e-mail code; nothing to reset is no event', () => {
      const reset: SecondFactorCommand = { kind: 'ResetSecondFactors', ...of };
      expect(given(secondFactorDecider).when(reset)).toEqual([]);
      const all = [...enrolled, ...given(secondFactorDecider, enrolled).when(register)];
      expect(given(secondFactorDecider, all).when(reset)).toEqual([{ type: 'SecondFactorsReset', data: { ...of, totp: true, passkeys: 1 } }]);
      const after = given(secondFactorDecider, given(secondFactorDecider, all).after(reset));
      expect(after.refused(use(9))).toBe('not_found');
      expect(after.refused({ kind: 'UseRecoveryCode', ...of, recoveryCodeHash: 'r1' })).toBe('code_invalid');
      expect(after.refused(accept(500))).toBe('not_found');
      expect(after.refused(enrol)).toBe('no error');
    });
  });
});
