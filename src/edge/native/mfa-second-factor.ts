import { Inject, Injectable } from '@nestjs/common';
import type { UserView } from '../../../projections/users.projection.js';
import { AccessDenied, RedirectToWeb } from '../../auth/oauth-errors.js';
import { Directory } from '../../shared/directory.js';
import { SecondFactors } from '../challenges/second-factors.js';
import { PageContexts } from '../pages/page-contexts.js';
import type { NativeSecondFactor, SecondFactorChallenge, SecondFactorSubject, SecondFactorVerdict } from './native-second-factor.js';

/** The `method` of each challenge as the app sees it (`otp_method`), and the factor it stands for. */
const FACTOR_OF = { totp: 'totp', email: 'email_otp' } as const;

/**
 * /native/authorize's second factors are the tenant's (the challenges kind): the same policy
 * per client, the same TOTP secrets, recovery codes, e-mail codes and sign-in limits as the
 * sign-in page. What a browser alone can do is sent to the browser: setting up an
 * authenticator app (it shows a QR code and the recovery codes), registering a passkey (both
 * also when the user must first prove a factor they have), and signing in with a passkey when
 * it is the only factor the user has are `redirect_to_web`.
 */
@Injectable()
export class MfaSecondFactor implements NativeSecondFactor {
  constructor(
    @Inject(SecondFactors) private readonly factors: SecondFactors,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(PageContexts) private readonly pages: PageContexts,
  ) {}

  async next(s: SecondFactorSubject): Promise<SecondFactorChallenge | null> {
    // One second factor proves multi-factor authentication (RFC 8176 `mfa`); none asks for two.
    if (s.proven.includes('mfa')) return null;
    const user = await this.user(s);
    const need = await this.factors.need(s.tenantId, s.clientId, user, s.acrValues);
    switch (need.kind) {
      case 'none':
        return null;
      case 'enrol-totp':
        throw new RedirectToWeb('the user must set up an authenticator app in the browser first');
      case 'enrol-webauthn':
        throw new RedirectToWeb('the user must register a passkey in the browser first');
      case 'unavailable':
        throw new AccessDenied('a second factor is required and the user has none this client accepts');
      case 'prove': {
        // A required app or passkey still to be set up is set up in the browser, after a proof there.
        if (need.thenEnrol) throw new RedirectToWeb(need.thenEnrol === 'totp' ? 'the user must set up an authenticator app in the browser first' : 'the user must register a passkey in the browser first');
        // An app's code when the user has one (it also takes a recovery code); else a code by e-mail.
        if (need.factors.includes('totp')) return { method: 'totp' };
        // WebAuthn needs a browser (the origin is the issuer's): a user with a passkey only signs in there.
        if (!need.factors.includes('email_otp')) throw new RedirectToWeb('the user signs in with a passkey, in the browser');
        const texts = (await this.pages.forLanguage(s.tenantId, s.uiLocales, undefined)).messages;
        await this.factors.sendEmailCode(s.tenantId, user, { subject: texts['challenge.email.subject'], body: texts['challenge.email.body'] }, s.origin);
        return { method: 'email', hint: maskedEmail(user) };
      }
      default: {
        const _never: never = need;
        return _never;
      }
    }
  }

  async verify(s: SecondFactorSubject, challenge: SecondFactorChallenge, answer: string): Promise<SecondFactorVerdict> {
    const factor = FACTOR_OF[challenge.method as keyof typeof FACTOR_OF];
    if (factor === undefined) return { kind: 'wrong' };
    const outcome = await this.factors.verify(s.tenantId, await this.user(s), { factor, code: answer }, [factor], s.origin);
    return outcome.kind === 'proved' ? { kind: 'proved', amr: outcome.amr } : outcome;
  }

  /** The user as the views have them now: one disabled or deleted since the password step signs in no further. */
  private async user(s: SecondFactorSubject): Promise<UserView> {
    const user = await this.directory.user(s.tenantId, s.userId);
    if (!user || user.disabled) throw new AccessDenied('the user can no longer sign in');
    return user;
  }
}

/** Enough of the address for the user to know which inbox to look in: `a***@example.com`. */
function maskedEmail(user: UserView): string | undefined {
  const email = user.claims.email;
  if (typeof email !== 'string') return undefined;
  const at = email.lastIndexOf('@');
  return at > 0 ? `${email[0]}***${email.slice(at)}` : undefined;
}
