import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomInt } from 'node:crypto';
import QRCode from 'qrcode';
import type { ChallengesView } from '../../../projections/challenges.projection.js';
import type { UserView } from '../../../projections/users.projection.js';
import { CONFIG, type Config } from '../../config.js';
import { AMR_PWD, mfaRequested } from '../../domain/challenge/acr.js';
import type { Factor } from '../../domain/challenge/challenges.events.js';
import { policyFor, type SecondFactorNeed, secondFactorNeed } from '../../domain/challenge/second-factor-need.js';
import { type SecondFactorCommand, secondFactorDecider, type SecondFactorState } from '../../domain/second-factor/second-factor.decider.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { streams } from '../../domain/shared/stream-names.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { SignInLimits } from '../login/sign-in-limits.js';
import { MAIL_PORT, type MailPort } from './mailer.js';
import { matchingStep, newTotpSecret, otpauthUri, totpStep } from './totp.js';

/** Recovery codes shown at enrolment. */
const RECOVERY_CODES = 10;
/** RFC 8176 §2: a second factor proved by a one-time code, beside the password. */
const AMR_OTP = ['pwd', 'otp', 'mfa'];
/** A recovery code is a second factor too, but no one-time password of a device. */
const AMR_RECOVERY = ['pwd', 'mfa'];

/** An authenticator app being set up: the secret as the app reads it, and sealed for the log and the pending request. */
export interface TotpEnrolment {
  sealedTotpSecret: string;
  secret: string;
  uri: string;
  /** The key URI as a QR code, an SVG document made here (no script, no external reference). */
  qrSvg: string;
}

/**
 * An answer to a second-factor challenge: `totp` takes an app's code or a recovery code;
 * `recovery_code` a recovery code alone (a user with a passkey and no app).
 */
export interface FactorAnswer {
  factor: 'totp' | 'email_otp' | 'recovery_code';
  code: string;
}

/** The decision on an answer: the methods proved (RFC 8176 `amr`), or why not. */
export type FactorOutcome = { kind: 'proved'; amr: string[]; recoveryCodes?: string[] } | { kind: 'wrong' } | { kind: 'limited'; retryAfterSeconds: number };

/** The texts of the e-mail with a code, in the user's language; `{code}` and `{minutes}` are filled in. */
export interface EmailCodeTexts {
  subject: string;
  body: string;
}

/**
 * The second factors of every sign-in entry point (the sign-in page, the native API): what a
 * user must still prove for a client, the enrolment of an authenticator app, e-mail codes, and
 * the check of an answer. Knows nothing of HTTP, cookies or pages. Wrong answers count
 * towards the same sign-in limits as wrong passwords (by username and address).
 */
@Injectable()
export class SecondFactors {
  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(SignInLimits) private readonly limits: SignInLimits,
    @Inject(MAIL_PORT) private readonly mail: MailPort,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  /** What `user` must still prove, after the password, to sign in to `clientId` (with the request's `acr_values`). */
  async need(tenantId: string, clientId: string, user: UserView, acrValues?: readonly string[]): Promise<SecondFactorNeed> {
    const [view, state] = await Promise.all([this.reads.get<ChallengesView>('challenges', tenantId), this.state(tenantId, user.userId)]);
    const policy = policyFor(view ?? undefined, clientId);
    return secondFactorNeed(policy, { totpEnrolled: state.sealedTotpSecret !== undefined, hasEmail: emailOf(user) !== undefined, webauthnEnrolled: state.passkeys.length > 0 }, mfaRequested(acrValues));
  }

  /** The `amr` of a sign-in with the password alone. */
  passwordOnly(): string[] {
    return [...AMR_PWD];
  }

  /** A new secret for `user`'s authenticator app, not yet theirs: it is once `confirmEnrolment` accepts a first code. */
  async beginEnrolment(tenantId: string, user: UserView): Promise<TotpEnrolment> {
    const secret = newTotpSecret();
    const sealedTotpSecret = this.keys.seal('totp-secret', secret.toString('base64url'), secretContext(tenantId, user.userId));
    return this.enrolment(tenantId, user, sealedTotpSecret);
  }

  /** The enrolment of a secret `beginEnrolment` sealed (the same page shown again). */
  async enrolment(tenantId: string, user: UserView, sealedTotpSecret: string): Promise<TotpEnrolment> {
    const secret = this.open(tenantId, user.userId, sealedTotpSecret);
    const uri = otpauthUri(secret, tenantId, user.username);
    const qrSvg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return { sealedTotpSecret, secret: uri.match(/secret=([A-Z2-7]+)/)![1], uri, qrSvg };
  }

  /**
   * The first code of the app being set up: when right, the app is the user's, with recovery
   * codes (returned once, kept only as keyed hashes); counted as a sign-in attempt.
   */
  async confirmEnrolment(tenantId: string, user: UserView, sealedTotpSecret: string, code: string, origin: RequestOrigin): Promise<FactorOutcome> {
    const secret = this.open(tenantId, user.userId, sealedTotpSecret);
    return this.attempt(tenantId, user, origin, async () => {
      const step = matchingStep(secret, code.trim(), this.clock.seconds());
      if (step === undefined) return undefined;
      const { recoveryCodes, recoveryCodeHashes } = this.newRecoveryCodes(tenantId, user.userId);
      const done = await this.run(tenantId, user.userId, { kind: 'EnrolTotp', tenantId, userId: user.userId, sealedTotpSecret, recoveryCodeHashes, step }, origin);
      return done ? { kind: 'proved', amr: AMR_OTP, recoveryCodes } : undefined;
    });
  }

  /** Sends `user` a new e-mail code (the one before stops counting). */
  async sendEmailCode(tenantId: string, user: UserView, texts: EmailCodeTexts, origin: RequestOrigin): Promise<void> {
    const to = emailOf(user);
    if (!to) throw new DomainError('not_found', 'the user has no e-mail address');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const ttl = this.config.mail.codeTtl;
    await this.run(tenantId, user.userId, { kind: 'SendEmailCode', tenantId, userId: user.userId, emailCodeHash: this.emailHash(tenantId, user.userId, code), expiresAt: this.clock.seconds() + ttl }, origin);
    const fill = (text: string) => text.replaceAll('{code}', code).replaceAll('{minutes}', String(Math.ceil(ttl / 60)));
    await this.mail.send({ to, subject: fill(texts.subject), text: fill(texts.body) });
  }

  /** Checks an answer to a challenge `need` asked for; right answers are spent (a TOTP step, a recovery code, an e-mail code: once each). */
  async verify(tenantId: string, user: UserView, answer: FactorAnswer, allowed: readonly Factor[], origin: RequestOrigin): Promise<FactorOutcome> {
    // Recovery codes stand in for the factors they were given with: an app or a passkey.
    const stands = answer.factor === 'recovery_code' ? allowed.includes('totp') || allowed.includes('webauthn') : allowed.includes(answer.factor);
    if (!stands) return { kind: 'wrong' };
    const code = answer.code.trim();
    return this.attempt(tenantId, user, origin, async () => {
      const of = { tenantId, userId: user.userId };
      if (answer.factor === 'email_otp') {
        const events = await this.run(tenantId, user.userId, { kind: 'AnswerEmailCode', ...of, emailCodeHash: this.emailHash(tenantId, user.userId, code), now: this.clock.seconds() }, origin);
        return events?.some((e) => e.type === 'EmailCodeAccepted') ? { kind: 'proved', amr: AMR_OTP } : undefined;
      }
      const { sealedTotpSecret } = await this.state(tenantId, user.userId);
      if (answer.factor === 'totp' && !sealedTotpSecret) return undefined;
      if (sealedTotpSecret && answer.factor === 'totp' && /^\d{6}$/.test(code)) {
        const step = matchingStep(this.open(tenantId, user.userId, sealedTotpSecret), code, this.clock.seconds());
        const accepted = step !== undefined && (await this.run(tenantId, user.userId, { kind: 'AcceptTotp', ...of, step }, origin));
        if (accepted) return { kind: 'proved', amr: AMR_OTP };
        await this.run(tenantId, user.userId, { kind: 'RecordFailure', ...of, factor: 'totp' }, origin);
        return undefined;
      }
      const used = await this.run(tenantId, user.userId, { kind: 'UseRecoveryCode', ...of, recoveryCodeHash: this.recoveryHash(tenantId, user.userId, code) }, origin);
      if (used) return { kind: 'proved', amr: AMR_RECOVERY };
      await this.run(tenantId, user.userId, { kind: 'RecordFailure', ...of, factor: 'recovery_code' }, origin);
      return undefined;
    });
  }

  /** New recovery codes for `userId` (to be shown once), and their keyed hashes (for the log). */
  newRecoveryCodes(tenantId: string, userId: string): { recoveryCodes: string[]; recoveryCodeHashes: string[] } {
    const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    return { recoveryCodes, recoveryCodeHashes: recoveryCodes.map((c) => this.recoveryHash(tenantId, userId, c)) };
  }

  /** The current TOTP step (for tests and pages that show how long a code lasts). */
  step(): number {
    return totpStep(this.clock.seconds());
  }

  /**
   * Runs `check` within the sign-in limits of the user's username and the request's address;
   * undefined from `check` is a wrong answer. Shared with the passkeys (passkeys.ts).
   */
  async attempt(tenantId: string, user: UserView, origin: RequestOrigin, check: () => Promise<FactorOutcome | undefined>): Promise<FactorOutcome> {
    const millis = () => this.clock.now().getTime();
    const result = await this.limits.attempt({ tenantId, username: user.username, address: origin.sourceIp }, millis, async () => {
      const outcome = await check();
      return { ok: outcome !== undefined, outcome };
    });
    if ('wait' in result) return { kind: 'limited', retryAfterSeconds: Math.max(1, Math.ceil(result.wait / 1000)) };
    return result.outcome ?? { kind: 'wrong' };
  }

  /** The events decided, or undefined when the command was refused (a replayed step, a spent code, a counter gone back). */
  async run(tenantId: string, userId: string, command: SecondFactorCommand, origin: RequestOrigin) {
    try {
      const outcome = await this.aggregates.execute(streams.secondFactors(tenantId, userId), secondFactorDecider, command, { tenantId, actor: `user:${userId}`, now: this.clock.now(), ...origin });
      return outcome.events;
    } catch (e) {
      if (e instanceof DomainError && e.code !== 'invalid_value') return undefined;
      throw e;
    }
  }

  /** The user's second factors as decided on their stream. */
  async state(tenantId: string, userId: string): Promise<SecondFactorState> {
    return (await this.aggregates.load(streams.secondFactors(tenantId, userId), secondFactorDecider)).state;
  }

  private open(tenantId: string, userId: string, sealed: string): Buffer {
    return Buffer.from(this.keys.open('totp-secret', sealed, secretContext(tenantId, userId)), 'base64url');
  }

  /** Keyed: a recovery code's 50 bits, or an e-mail code's 20, cannot be found from the log by hashing guesses. */
  private recoveryHash(tenantId: string, userId: string, code: string): string {
    return this.keys.keyedHash('recovery code', `${tenantId}\n${userId}\n${code.toUpperCase().replace(/[^A-Z2-7]/g, '')}`);
  }

  private emailHash(tenantId: string, userId: string, code: string): string {
    return this.keys.keyedHash('email code', `${tenantId}\n${userId}\n${code}`);
  }
}

const secretContext = (tenantId: string, userId: string) => `${tenantId}\n${userId}`;

function emailOf(user: UserView): string | undefined {
  const email = user.claims.email;
  return typeof email === 'string' && email.includes('@') ? email : undefined;
}

const RECOVERY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Ten characters of base32 (50 bits), written `XXXXX-XXXXX`. */
function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = Array.from({ length: 10 }, (_, i) => RECOVERY_ALPHABET[bytes[i] & 31]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}
