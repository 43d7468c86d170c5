import { Controller, Get, Inject, Logger, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { UserView } from '../../../projections/users.projection.js';
import { type FlowResult, pageImages, sendFlowResult } from '../../auth/authorize/flow-result.js';
import { type AuthorizationRequest, Interactions } from '../../auth/authorize/interaction.js';
import { formParams } from '../../auth/form-request.js';
import { InvalidRequest, UserFacingError } from '../../auth/oauth-errors.js';
import { readParams } from '../../auth/params.js';
import { CONFIG, type Config } from '../../config.js';
import { Directory } from '../../shared/directory.js';
import { fill, type PageContext, render } from '../../shared/html.js';
import { originOf } from '../../shared/request-origin.js';
import { SignInCompletion } from '../login/sign-in-completion.js';
import type { MessageKey } from '../pages/messages.en.js';
import { PageContexts } from '../pages/page-contexts.js';
import { type FactorOutcome, SecondFactors, type TotpEnrolment } from './second-factors.js';

type Pending = AuthorizationRequest & { secondFactor: NonNullable<AuthorizationRequest['secondFactor']> };

/**
 * The sign-in's second step, after a right password when a second factor is due: `mfa` (a
 * code from the authenticator app or a recovery code, or an e-mail code), `mfa-enrol` (an
 * authenticator app set up, then its recovery codes shown once), `mfa-continue` (on to the
 * application). Plain forms, no script; the password's proof travels in the sealed request.
 */
@Controller(':tenant')
export class ChallengesPagesController {
  private readonly logger = new Logger('SecondFactors');

  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Interactions) private readonly interactions: Interactions,
    @Inject(PageContexts) private readonly locales: PageContexts,
    @Inject(SecondFactors) private readonly factors: SecondFactors,
    @Inject(SignInCompletion) private readonly completion: SignInCompletion,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Get('mfa')
  async show(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { request, ctx } = await this.open(tenantId, readParams(req.query).interaction, req);
    sendFlowResult(reply, this.challengePage(ctx, request, 200));
  }

  @Post('mfa')
  async answer(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = formParams(req);
    const { tenant, request, user, ctx } = await this.open(tenantId, params.interaction, req);
    const factor = params.factor === 'email_otp' ? 'email_otp' : 'totp';
    const outcome = await this.factors.verify(tenantId, user, { factor, code: params.code ?? '' }, request.secondFactor.factors, originOf(req));
    if (outcome.kind !== 'proved') {
      sendFlowResult(reply, this.refused(reply, outcome, (status, notice) => this.challengePage(ctx, request, status, notice)));
      return;
    }
    sendFlowResult(reply, await this.finish(tenant, request, user, outcome.amr, req));
  }

  /** Sends an e-mail code and shows the page with its field. */
  @Post('mfa-email')
  async sendEmail(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { request, user, ctx } = await this.open(tenantId, formParams(req).interaction, req);
    if (!request.secondFactor.factors.includes('email_otp')) throw new UserFacingError(new InvalidRequest('e-mail codes are not offered for this sign-in'));
    try {
      await this.factors.sendEmailCode(tenantId, user, { subject: ctx.messages['challenge.email.subject'], body: ctx.messages['challenge.email.body'] }, originOf(req));
    } catch (e) {
      // The relay is down or refused the mail: the user may try again, or use another factor.
      this.logger.error(`an e-mail code was not sent: ${String(e)}`);
      sendFlowResult(reply, this.challengePage(ctx, request, 503, { key: 'challenge.email.failed', error: true }));
      return;
    }
    const sent: Pending = { ...request, secondFactor: { ...request.secondFactor, emailSent: true } };
    sendFlowResult(reply, this.challengePage(ctx, sent, 200, { key: 'challenge.email.sent', vars: { minutes: Math.ceil(this.config.mail.codeTtl / 60) } }, true));
  }

  @Get('mfa-enrol')
  async enrolPage(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { request, user, ctx } = await this.open(tenantId, readParams(req.query).interaction, req);
    sendFlowResult(reply, (await this.enrolmentPage(ctx, request, user, 200)).result);
  }

  /** The app's first code: the app is the user's, the sign-in completes, and the recovery codes are shown once. */
  @Post('mfa-enrol')
  async enrol(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = formParams(req);
    const { request, user, ctx } = await this.open(tenantId, params.interaction, req);
    const { enrolment: _checked } = await this.enrolmentPage(ctx, request, user, 200);
    const sealedSecret = request.secondFactor.enrolTotp!;
    const origin = originOf(req);
    const outcome = await this.factors.confirmEnrolment(tenantId, user, sealedSecret, params.code ?? '', origin);
    if (outcome.kind !== 'proved') {
      const { result, enrolment } = await this.enrolmentPage(ctx, request, user, 400);
      sendFlowResult(reply, this.refused(reply, outcome, (status, notice) => ({ ...result, status, body: this.renderEnrolment(ctx, request, enrolment, notice) })));
      return;
    }
    const { sessionId: _s, cookies } = await this.completion.signIn(tenantId, request, user, outcome.amr, req.headers.cookie, origin);
    const { secondFactor: _done, ...rest } = request;
    const data = { action: `${this.directory.issuer(tenantId)}/mfa-continue`, interaction: this.interactions.seal({ ...rest, authenticated: true }), codes: outcome.recoveryCodes ?? [] };
    sendFlowResult(reply, { kind: 'html', status: 200, body: render('recovery-codes', 'recovery.title', data, ctx), cookies, ...pageImages(ctx.logoUrl) });
  }

  /** After the recovery codes: the pending request resumes with the session the enrolment signed in to. */
  @Post('mfa-continue')
  async continue(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = await this.directory.requireTenant(tenantId);
    const request = this.interactions.open(tenantId, formParams(req).interaction, req.headers.cookie);
    if (!request?.authenticated) throw expired();
    sendFlowResult(reply, await this.completion.resumeHeld(tenant, request, req.headers.cookie, originOf(req)));
  }

  private async finish(tenant: TenantView, request: Pending, user: UserView, amr: string[], req: FastifyRequest): Promise<FlowResult> {
    const origin = originOf(req);
    const { sessionId, cookies } = await this.completion.signIn(tenant.tenantId, request, user, amr, req.headers.cookie, origin);
    return this.completion.resume(tenant, request, sessionId, cookies, origin);
  }

  /** A wrong answer (400) or one held up by the sign-in limits (429 with Retry-After). */
  private refused(reply: FastifyReply, outcome: Exclude<FactorOutcome, { kind: 'proved' }>, page: (status: number, notice: Notice) => FlowResult): FlowResult {
    if (outcome.kind === 'limited') {
      reply.header('retry-after', String(outcome.retryAfterSeconds));
      return page(429, { key: 'challenge.limited', vars: { seconds: outcome.retryAfterSeconds }, error: true });
    }
    return page(400, { key: 'challenge.wrong', error: true });
  }

  private async open(tenantId: string, sealed: string | undefined, req: FastifyRequest): Promise<{ tenant: TenantView; request: Pending; user: UserView; ctx: PageContext }> {
    const tenant = await this.directory.requireTenant(tenantId);
    const request = this.interactions.open(tenantId, sealed, req.headers.cookie);
    if (!request?.secondFactor) throw expired();
    const user = await this.directory.user(tenantId, request.secondFactor.userId);
    if (!user || user.disabled) throw expired();
    const ctx = await this.locales.context(tenantId, req, request.uiLocales);
    return { tenant, request: request as Pending, user, ctx };
  }

  private challengePage(ctx: PageContext, request: Pending, status: number, notice?: Notice, emailSent = request.secondFactor.emailSent === true): FlowResult {
    const issuer = this.directory.issuer(request.tenantId);
    const sealed = this.interactions.seal(emailSent ? { ...request, secondFactor: { ...request.secondFactor, emailSent: true } } : request);
    const text = notice && fill(ctx.messages[notice.key], notice.vars);
    const data = {
      action: `${issuer}/mfa`,
      sendAction: `${issuer}/mfa-email`,
      interaction: sealed,
      totp: request.secondFactor.factors.includes('totp'),
      email: request.secondFactor.factors.includes('email_otp'),
      emailSent,
      error: notice?.error ? text : undefined,
      notice: notice && !notice.error ? text : undefined,
    };
    return { kind: 'html', status, body: render('second-factor', 'challenge.title', data, ctx), ...pageImages(ctx.logoUrl) };
  }

  private async enrolmentPage(ctx: PageContext, request: Pending, user: UserView, status: number): Promise<{ result: FlowResult & { kind: 'html' }; enrolment: TotpEnrolment }> {
    const sealedSecret = request.secondFactor.enrolTotp;
    if (!sealedSecret) throw new UserFacingError(new InvalidRequest('no authenticator app is being set up in this sign-in'));
    const enrolment = await this.factors.enrolment(request.tenantId, user, sealedSecret);
    return { result: { kind: 'html', status, body: this.renderEnrolment(ctx, request, enrolment), ...pageImages(ctx.logoUrl) }, enrolment };
  }

  private renderEnrolment(ctx: PageContext, request: Pending, enrolment: { secret: string; qrSvg: string }, notice?: Notice): string {
    const data = {
      action: `${this.directory.issuer(request.tenantId)}/mfa-enrol`,
      interaction: this.interactions.seal(request),
      secret: enrolment.secret,
      qrSvg: enrolment.qrSvg,
      error: notice && fill(ctx.messages[notice.key], notice.vars),
    };
    return render('enrol-totp', 'enrol.title', data, ctx);
  }
}

interface Notice {
  key: MessageKey;
  vars?: Record<string, string | number>;
  error?: true;
}

const expired = () => new UserFacingError(new InvalidRequest('this sign-in link has expired or belongs to another browser; start again from the application'));
