import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { UserView } from '../../../projections/users.projection.js';
import { type FlowResult, pageImages } from '../../auth/authorize/flow-result.js';
import { type AuthorizationRequest, Interactions } from '../../auth/authorize/interaction.js';
import { InvalidRequest, UserFacingError } from '../../auth/oauth-errors.js';
import { Directory } from '../../shared/directory.js';
import { fill, type PageContext, render } from '../../shared/html.js';
import { originOf } from '../../shared/request-origin.js';
import { SignInCompletion } from '../login/sign-in-completion.js';
import type { MessageKey } from '../pages/messages.en.js';
import { PageContexts } from '../pages/page-contexts.js';
import { Passkeys } from './passkeys.js';
import { type FactorOutcome, SecondFactors } from './second-factors.js';

export type Pending = AuthorizationRequest & { secondFactor: NonNullable<AuthorizationRequest['secondFactor']> };

/** A text shown on a page: an error (`role=alert`) or a status. */
export interface Notice {
  key: MessageKey;
  vars?: Record<string, string | number>;
  error?: true;
}

/** The served script of the passkey pages (CSP: no inline script), relative to the issuer. */
export const PASSKEY_SCRIPT = 'assets/passkey.js';

/**
 * What the second-factor pages share: the pending sign-in they continue, the challenge page
 * (app code, e-mail code, passkey), the answer to a refused attempt, and the end of the sign-in.
 */
@Injectable()
export class ChallengePages {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Interactions) private readonly interactions: Interactions,
    @Inject(PageContexts) private readonly locales: PageContexts,
    @Inject(Passkeys) private readonly passkeys: Passkeys,
    @Inject(SignInCompletion) private readonly completion: SignInCompletion,
    @Inject(SecondFactors) private readonly factors: SecondFactors,
  ) {}

  /** The pending sign-in a second factor is due in, its user (still enabled) and the page's language. */
  async open(tenantId: string, sealed: string | undefined, req: FastifyRequest): Promise<{ tenant: TenantView; request: Pending; user: UserView; ctx: PageContext }> {
    const tenant = await this.directory.requireTenant(tenantId);
    const request = this.interactions.open(tenantId, sealed, req.headers.cookie);
    if (!request?.secondFactor) throw expired();
    const user = await this.directory.user(tenantId, request.secondFactor.userId);
    if (!user || user.disabled) throw expired();
    const ctx = await this.locales.context(tenantId, req, request.uiLocales);
    return { tenant, request: request as Pending, user, ctx };
  }

  /**
   * The challenge page: a form per factor the user may answer with. With a passkey, a new
   * WebAuthn challenge is sealed into the pending sign-in the page carries.
   */
  async challenge(ctx: PageContext, request: Pending, user: UserView, status: number, notice?: Notice, emailSent = request.secondFactor.emailSent === true): Promise<FlowResult> {
    const issuer = this.directory.issuer(request.tenantId);
    const factors = request.secondFactor.factors;
    let secondFactor: Pending['secondFactor'] = emailSent ? { ...request.secondFactor, emailSent: true } : request.secondFactor;
    let passkeyOptions: string | undefined;
    if (factors.includes('webauthn')) {
      const { options, challenge } = await this.passkeys.authenticationOptions(request.tenantId, user);
      secondFactor = { ...secondFactor, passkeyChallenge: challenge };
      passkeyOptions = JSON.stringify(options);
    }
    const text = notice && fill(ctx.messages[notice.key], notice.vars);
    const data = {
      action: `${issuer}/mfa`,
      sendAction: `${issuer}/mfa-email`,
      passkeyAction: `${issuer}/mfa-passkey`,
      interaction: this.interactions.seal({ ...request, secondFactor }),
      totp: factors.includes('totp'),
      email: factors.includes('email_otp'),
      passkeyOptions,
      emailSent,
      error: notice?.error ? text : undefined,
      notice: notice && !notice.error ? text : undefined,
    };
    const body = render('second-factor', 'challenge.title', data, ctx, passkeyOptions ? PASSKEY_SCRIPT : undefined);
    return { kind: 'html', status, body, ...pageImages(ctx.logoUrl) };
  }

  /** A wrong answer (400, `wrong`'s text) or one held up by the sign-in limits (429 with Retry-After). */
  refusal(reply: FastifyReply, outcome: Exclude<FactorOutcome, { kind: 'proved' }>, wrong: MessageKey = 'challenge.wrong'): { status: number; notice: Notice } {
    if (outcome.kind === 'limited') {
      reply.header('retry-after', String(outcome.retryAfterSeconds));
      return { status: 429, notice: { key: 'challenge.limited', vars: { seconds: outcome.retryAfterSeconds }, error: true } };
    }
    return { status: 400, notice: { key: wrong, error: true } };
  }

  /**
   * A factor set up with new recovery codes: the browser session starts with `amr`, and the
   * codes are shown once; Continue (`mfa-continue`) resumes the pending request.
   */
  async recoveryCodes(ctx: PageContext, request: Pending, user: UserView, amr: string[], codes: string[], req: FastifyRequest): Promise<FlowResult> {
    const { tenantId } = request;
    const { cookies } = await this.completion.signIn(tenantId, request, user, withProof(request, amr), req.headers.cookie, originOf(req));
    const { secondFactor: _done, ...rest } = request;
    const data = { action: `${this.directory.issuer(tenantId)}/mfa-continue`, interaction: this.interactions.seal({ ...rest, authenticated: true }), codes };
    return { kind: 'html', status: 200, body: render('recovery-codes', 'recovery.title', data, ctx), cookies, ...pageImages(ctx.logoUrl) };
  }

  /** The factor proved: the browser session starts with `amr`, and the pending request resumes. */
  async finish(tenant: TenantView, request: Pending, user: UserView, amr: string[], req: FastifyRequest): Promise<FlowResult> {
    const origin = originOf(req);
    const { sessionId, cookies } = await this.completion.signIn(tenant.tenantId, request, user, withProof(request, amr), req.headers.cookie, origin);
    return this.completion.resume(tenant, request, sessionId, cookies, origin);
  }

  /**
   * A factor proved on the `mfa` page (`amr`): the sign-in completes, or, when a required app or
   * passkey is still to be set up (`thenEnrol`), goes on to its enrolment, which only this proof
   * opens; the other factors are no longer answerable in this sign-in.
   */
  async proved(tenant: TenantView, request: Pending, user: UserView, amr: string[], req: FastifyRequest): Promise<FlowResult> {
    const { userId, thenEnrol } = request.secondFactor;
    if (!thenEnrol) return this.finish(tenant, request, user, amr, req);
    const next: Pending['secondFactor'] =
      thenEnrol === 'totp'
        ? { userId, factors: [], proved: amr, enrolTotp: (await this.factors.beginEnrolment(tenant.tenantId, user)).sealedTotpSecret }
        : { userId, factors: [], proved: amr, enrolWebauthn: true };
    const path = thenEnrol === 'totp' ? 'mfa-enrol' : 'mfa-passkey-enrol';
    const sealed = this.interactions.seal({ ...request, secondFactor: next });
    return { kind: 'redirect', location: `${this.directory.issuer(tenant.tenantId)}/${path}?interaction=${encodeURIComponent(sealed)}` };
  }
}

/** The `amr` of an enrolment made after another factor was proved: both methods (RFC 8176), `mfa` last. */
function withProof(request: Pending, amr: string[]): string[] {
  const proved = request.secondFactor.proved;
  if (!proved) return amr;
  return [...new Set([...proved, ...amr].filter((m) => m !== 'mfa')), 'mfa'];
}

export const expired = () => new UserFacingError(new InvalidRequest('this sign-in link has expired or belongs to another browser; start again from the application'));
