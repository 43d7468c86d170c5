import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';

/** Who is signing in at /native/authorize, and what they have proven so far in this sign-in. */
export interface SecondFactorSubject {
  tenantId: string;
  clientId: string;
  userId: string;
  /** What was proven so far, as RFC 8176 `amr` values (`pwd` first; then what each answered challenge proved). */
  proven: string[];
  /** The request's `acr_values` (a multi-factor acr asks for a second factor) and `ui_locales` (the language of an e-mailed code). */
  acrValues?: readonly string[];
  uiLocales?: string;
  origin: RequestOrigin;
}

/** The decision on an answer: what it proved (RFC 8176 `amr` values), or why not. */
export type SecondFactorVerdict = { kind: 'proved'; amr: string[] } | { kind: 'wrong' } | { kind: 'limited'; retryAfterSeconds: number };

/**
 * One more thing the user must prove: answered to the app as `insufficient_authorization` with
 * `challenge_type` `otp`, `otp_method` (`method`) and `hint`, and proven by the next request's
 * `otp`.
 */
export interface SecondFactorChallenge {
  /** The factor, as the app shows it and `amr` names it: `totp`, `email`, ... */
  method: string;
  /** What the app may show the user to find the code (a masked e-mail address, say); never a secret. */
  hint?: string;
  /**
   * What the binding needs to verify the answer later (the id of an e-mailed code, say): kept
   * sealed in the auth_session, never shown. Never a secret in usable form.
   */
  ref?: string;
}

/**
 * The port /native/authorize asks after the password: what the user must still prove for this
 * client, and whether an answer proves it. The binding owns its own limits (codes tried, codes
 * sent); the endpoint only ends a sign-in after a few wrong answers.
 */
export interface NativeSecondFactor {
  /** The next challenge for `s`, or null when what was proven is enough. */
  next(s: SecondFactorSubject): Promise<SecondFactorChallenge | null>;
  /** Whether `answer` proves `challenge` for `s`, and what it proved. */
  verify(s: SecondFactorSubject, challenge: SecondFactorChallenge, answer: string): Promise<SecondFactorVerdict>;
}

export const NATIVE_SECOND_FACTOR = Symbol('NativeSecondFactor');

/** A binding that asks nothing beyond the password (the server binds MfaSecondFactor; this one is for specs of the flow). */
export class NoSecondFactor implements NativeSecondFactor {
  next(): Promise<SecondFactorChallenge | null> {
    return Promise.resolve(null);
  }

  verify(): Promise<SecondFactorVerdict> {
    return Promise.resolve({ kind: 'wrong' });
  }
}
