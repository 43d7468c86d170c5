import { Controller, Get, Inject, Logger, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserView } from '../../../projections/users.projection.js';
import { type FlowResult, pageImages, sendFlowResult } from '../../auth/authorize/flow-result.js';
import { Interactions } from '../../auth/authorize/interaction.js';
import { formParams } from '../../auth/form-request.js';
import { InvalidRequest, UserFacingError } from '../../auth/oauth-errors.js';
import { readParams } from '../../auth/params.js';
import { CONFIG, type Config } from '../../config.js';
import { Directory } from '../../shared/directory.js';
import { fill, type PageContext, render } from '../../shared/html.js';
import { originOf } from '../../shared/request-origin.js';
import { SignInCompletion } from '../login/sign-in-completion.js';
import { ChallengePages, expired, type Notice, type Pending } from './challenge-pages.js';
import { SecondFactors, type TotpEnrolment } from './second-factors.js';

/**
 * The sign-in's second step, after a right password when a second factor is due: `mfa` (a
 * code from the authenticator app or a recovery code, or an e-mail code), `mfa-enrol` (an
 * authenticator app set up, then its recovery codes shown once), `mfa-continue` (on to the
 * application). Plain forms, no script (but the passkey's, passkeys.controller.ts); the
 * password's proof travels in the sealed request.
 */
@Controller(':tenant')
export class ChallengesPagesController {
  private readonly logger = new Logger('SecondFactors');

  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Interactions) private readonly interactions: Interactions,
    @Inject(ChallengePages) private readonly pages: ChallengePages,
    @Inject(SecondFactors) private readonly factors: SecondFactors,
    @Inject(SignInCompletion) private readonly completion: SignInCompletion,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Get('mfa')
  async show(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { request, user, ctx } = await this.pages.open(tenantId, readParams(req.query).interaction, req);
    sendFlowResult(reply, await this.pages.challenge(ctx, request, user, 200));
  }

  @Post('mfa')
  async answer(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = formParams(req);
    const { tenant, request, user, ctx } = await this.pages.open(tenantId, params.interaction, req);
    const factor = params.factor === 'email_otp' || params.factor === 'recovery_code' ? params.factor : 'totp';
    const outcome = await this.factors.verify(tenantId, user, { factor, code: params.code ?? '' }, request.secondFactor.factors, originOf(req));
    if (outcome.kind !== 'proved') {
      const { status, notice } = this.pages.refusal(reply, outcome);
      sendFlowResult(reply, await this.pages.challenge(ctx, request, user, status, notice));
      return;
    }
    sendFlowResult(reply, await this.pages.proved(tenant, request, user, outcome.amr, req));
  }

  /** Sends an e-mail code and shows the page with its field. */
  @Post('mfa-email')
  async sendEmail(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { request, user, ctx } = await this.pages.open(tenantId, formParams(req).interaction, req);
    if (!request.secondFactor.factors.includes('email_otp')) throw new UserFacingError(new InvalidRequest('e-mail codes are not offered for this sign-in'));
    try {
      await this.factors.sendEmailCode(tenantId, user, { subject: ctx.messages['challenge.email.subject'], body: ctx.messages['challenge.email.body'] }, originOf(req));
    } catch (e) {
      // The relay is down or refused the mail: the user may try again, or use another factor.
      this.logger.error(`an e-mail code was not sent: ${String(e)}`);
      sendFlowResult(reply, await this.pages.challenge(ctx, request, user, 503, { key: 'challenge.email.failed', error: true }));
      return;
    }
    const sent: Pending = { ...request, secondFactor: { ...request.secondFactor, emailSent: true } };
    sendFlowResult(reply, await this.pages.challenge(ctx, sent, user, 200, { key: 'challenge.email.sent', vars: { minutes: Math.ceil(this.config.mail.codeTtl / 60) } }, true));
  }

  @Get('mfa-enrol')
  async enrolPage(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { request, user, ctx } = await this.pages.open(tenantId, readParams(req.query).interaction, req);
    sendFlowResult(reply, (await this.enrolmentPage(ctx, request, user, 200)).result);
  }

  /** The app's first code: the app is the user's, the sign-in completes, and the recovery codes are shown once. */
  @Post('mfa-enrol')
  async enrol(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = formParams(req);
    const { request, user, ctx } = await this.pages.open(tenantId, params.interaction, req);
    const { enrolment: _checked } = await this.enrolmentPage(ctx, request, user, 200);
    const sealedSecret = request.secondFactor.enrolTotp!;
    const origin = originOf(req);
    const outcome = await this.factors.confirmEnrolment(tenantId, user, sealedSecret, params.code ?? '', origin);
    if (outcome.kind !== 'proved') {
      const { result, enrolment } = await this.enrolmentPage(ctx, request, user, 400);
      const { status, notice } = this.pages.refusal(reply, outcome);
      sendFlowResult(reply, { ...result, status, body: this.renderEnrolment(ctx, request, enrolment, notice) });
      return;
    }
    sendFlowResult(reply, await this.pages.recoveryCodes(ctx, request, user, outcome.amr, outcome.recoveryCodes ?? [], req));
  }

  /** After the recovery codes: the pending request resumes with the session the enrolment signed in to. */
  @Post('mfa-continue')
  async continue(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = await this.directory.requireTenant(tenantId);
    const request = this.interactions.open(tenantId, formParams(req).interaction, req.headers.cookie);
    if (!request?.authenticated) throw expired();
    sendFlowResult(reply, await this.completion.resumeHeld(tenant, request, req.headers.cookie, originOf(req)));
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
