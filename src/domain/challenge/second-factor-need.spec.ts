import { policyFor, secondFactorNeed } from './second-factor-need.js';

const none = { totpEnrolled: false, hasEmail: false };
const app = { totpEnrolled: true, hasEmail: false };
const mail = { totpEnrolled: false, hasEmail: true };

describe('second factor need', () => {
  it('takes the client override, then the tenant policy, then off', () => {
    const d = { factors: { totp: 'required' as const, email_otp: 'optional' as const }, clients: { kiosk: { totp: 'off' as const } } };
    expect(policyFor(d, 'web')).toEqual({ totp: 'required', email_otp: 'optional', webauthn: 'off' });
    expect(policyFor(d, 'kiosk')).toEqual({ totp: 'off', email_otp: 'optional', webauthn: 'off' });
    expect(policyFor(undefined, 'web')).toEqual({ totp: 'off', email_otp: 'off', webauthn: 'off' });
    expect(policyFor({ factors: { webauthn: 'optional' }, clients: { kiosk: { webauthn: 'required' } } }, 'kiosk').webauthn).toBe('required');
  });

  it('asks nothing when every factor is off, or optional and not enrolled, unless acr_values ask for mfa', () => {
    expect(secondFactorNeed({ totp: 'off', email_otp: 'off' }, app, false)).toEqual({ kind: 'none' });
    expect(secondFactorNeed({ totp: 'off', email_otp: 'off' }, app, true)).toEqual({ kind: 'none' });
    expect(secondFactorNeed({ totp: 'optional', email_otp: 'off' }, none, false)).toEqual({ kind: 'none' });
    expect(secondFactorNeed({ totp: 'optional', email_otp: 'off' }, none, true)).toEqual({ kind: 'enrol-totp' });
    expect(secondFactorNeed({ totp: 'off', email_otp: 'optional' }, mail, false)).toEqual({ kind: 'none' });
    expect(secondFactorNeed({ totp: 'off', email_otp: 'optional' }, mail, true)).toEqual({ kind: 'prove', factors: ['email_otp'] });
  });

  it('asks an enrolled user for the app when it is optional or required', () => {
    expect(secondFactorNeed({ totp: 'optional', email_otp: 'off' }, app, false)).toEqual({ kind: 'prove', factors: ['totp'] });
    expect(secondFactorNeed({ totp: 'required', email_otp: 'optional' }, { totpEnrolled: true, hasEmail: true }, false)).toEqual({ kind: 'prove', factors: ['totp', 'email_otp'] });
  });

  it('has a required app set up first, and says when nothing can be proved', () => {
    expect(secondFactorNeed({ totp: 'required', email_otp: 'off' }, none, false)).toEqual({ kind: 'enrol-totp' });
    expect(secondFactorNeed({ totp: 'off', email_otp: 'required' }, none, false)).toEqual({ kind: 'unavailable' });
    expect(secondFactorNeed({ totp: 'off', email_otp: 'required' }, mail, false)).toEqual({ kind: 'prove', factors: ['email_otp'] });
  });

  describe('passkeys (webauthn)', () => {
    const key = { totpEnrolled: false, hasEmail: false, webauthnEnrolled: true };
    const both = { totpEnrolled: true, hasEmail: true, webauthnEnrolled: true };

    it('has a required passkey registered first, and asks a user who has one', () => {
      expect(secondFactorNeed({ webauthn: 'required' }, none, false)).toEqual({ kind: 'enrol-webauthn' });
      expect(secondFactorNeed({ webauthn: 'required' }, key, false)).toEqual({ kind: 'prove', factors: ['webauthn'] });
      expect(secondFactorNeed({ webauthn: 'optional' }, key, false)).toEqual({ kind: 'prove', factors: ['webauthn'] });
      expect(secondFactorNeed({ webauthn: 'optional' }, none, false)).toEqual({ kind: 'none' });
      expect(secondFactorNeed({ webauthn: 'optional' }, none, true)).toEqual({ kind: 'enrol-webauthn' });
    });

    it('offers every factor the user has and the client allows; a passkey turned off is not one', () => {
      expect(secondFactorNeed({ totp: 'optional', email_otp: 'optional', webauthn: 'optional' }, both, false)).toEqual({ kind: 'prove', factors: ['totp', 'webauthn', 'email_otp'] });
      expect(secondFactorNeed({ totp: 'required', webauthn: 'off' }, key, false)).toEqual({ kind: 'enrol-totp' });
      expect(secondFactorNeed({ totp: 'off', webauthn: 'off' }, key, true)).toEqual({ kind: 'none' });
      // Both required: the app first, then (its own sign-in) the passkey.
      expect(secondFactorNeed({ totp: 'required', webauthn: 'required' }, none, false)).toEqual({ kind: 'enrol-totp' });
    });

    it('has a user who can prove a factor prove it before a missing required one is set up', () => {
      expect(secondFactorNeed({ totp: 'required', webauthn: 'required' }, app, false)).toEqual({ kind: 'prove', factors: ['totp'], thenEnrol: 'webauthn' });
      expect(secondFactorNeed({ totp: 'required', webauthn: 'required' }, key, false)).toEqual({ kind: 'prove', factors: ['webauthn'], thenEnrol: 'totp' });
      expect(secondFactorNeed({ totp: 'required', webauthn: 'optional' }, key, false)).toEqual({ kind: 'prove', factors: ['webauthn'], thenEnrol: 'totp' });
      expect(secondFactorNeed({ totp: 'optional', webauthn: 'required' }, app, true)).toEqual({ kind: 'prove', factors: ['totp'], thenEnrol: 'webauthn' });
      // An e-mail address the tenant takes codes at is a factor the user can prove.
      expect(secondFactorNeed({ totp: 'required', email_otp: 'optional' }, mail, false)).toEqual({ kind: 'prove', factors: ['email_otp'], thenEnrol: 'totp' });
      expect(secondFactorNeed({ webauthn: 'required', email_otp: 'required' }, mail, false)).toEqual({ kind: 'prove', factors: ['email_otp'], thenEnrol: 'webauthn' });
      // Nothing to prove yet: set up right after the password.
      expect(secondFactorNeed({ totp: 'required', email_otp: 'off' }, mail, false)).toEqual({ kind: 'enrol-totp' });
    });
  });
});
