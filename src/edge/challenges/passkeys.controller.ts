import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserView } from '../../../projections/users.projection.js';
import { type FlowResult, pageImages, sendFlowResult } from '../../auth/authorize/flow-result.js';
import { Interactions } from '../../auth/authorize/interaction.js';
import { formParams } from '../../auth/form-request.js';
import { InvalidRequest, UserFacingError } from '../../auth/oauth-errors.js';
import { readParams } from '../../auth/params.js';
import { Directory } from '../../shared/directory.js';
import { fill, type PageContext, render } from '../../shared/html.js';
import { originOf } from '../../shared/request-origin.js';
import { ChallengePages, type Notice, PASSKEY_SCRIPT, type Pending } from './challenge-pages.js';
import { PASSKEY_SCRIPT_SOURCE } from './passkey-script.js';
import { Passkeys } from './passkeys.js';

/**
 * Passkeys on the second-factor pages: `mfa-passkey` takes an assertion made on the `mfa`
 * page, `mfa-passkey-enrol` registers a passkey after the password when one is required. The
 * browser's part (navigator.credentials) is the served script `assets/passkey.js`; what it
 * posts is the credential as JSON in the form field `credential`, with the sealed pending
 * sign-in that holds the challenge.
 */
@Controller(':tenant')
export class PasskeysPagesController {
  constructor(
    @Inject(ChallengePages) private readonly pages: ChallengePages,
    @Inject(Passkeys) private readonly passkeys: Passkeys,
    @Inject(Interactions) private readonly interactions: Interactions,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  /** The same for every tenant; cached by the browser (it changes only with a release). */
  @Get('assets/passkey.js')
  script(@Res() reply: FastifyReply): void {
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=86400').send(PASSKEY_SCRIPT_SOURCE);
  }

  /** An assertion by one of the user's passkeys over the challenge of the page it came from. */
  @Post('mfa-passkey')
  async answer(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = formParams(req);
    const { tenant, request, user, ctx } = await this.pages.open(tenantId, params.interaction, req);
    if (!request.secondFactor.factors.includes('webauthn')) throw new UserFacingError(new InvalidRequest('passkeys are not offered for this sign-in'));
    const outcome = await this.passkeys.verify(tenantId, user, request.secondFactor.passkeyChallenge, params.credential ?? '', originOf(req));
    if (outcome.kind !== 'proved') {
      const { status, notice } = this.pages.refusal(reply, outcome, 'challenge.passkey.wrong');
      sendFlowResult(reply, await this.pages.challenge(ctx, request, user, status, notice));
      return;
    }
    sendFlowResult(reply, await this.pages.proved(tenant, request, user, outcome.amr, req));
  }

  @Get('mfa-passkey-enrol')
  async enrolPage(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { request, user, ctx } = await this.pages.open(tenantId, readParams(req.query).interaction, req);
    sendFlowResult(reply, await this.enrolment(ctx, enrolling(request), user, 200));
  }

  /**
   * The new passkey's registration: when it verifies, the passkey is the user's and the sign-in
   * completes; a user who had neither an app nor recovery codes is shown new ones first.
   */
  @Post('mfa-passkey-enrol')
  async enrol(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = formParams(req);
    const { tenant, request, user, ctx } = await this.pages.open(tenantId, params.interaction, req);
    const outcome = await this.passkeys.register(tenantId, user, enrolling(request).secondFactor.passkeyChallenge, params.credential ?? '', originOf(req));
    if (outcome.kind !== 'proved') {
      const { status, notice } = this.pages.refusal(reply, outcome, 'passkeyEnrol.wrong');
      sendFlowResult(reply, await this.enrolment(ctx, request, user, status, notice));
      return;
    }
    if (outcome.recoveryCodes) {
      sendFlowResult(reply, await this.pages.recoveryCodes(ctx, request, user, outcome.amr, outcome.recoveryCodes, req));
      return;
    }
    sendFlowResult(reply, await this.pages.finish(tenant, request, user, outcome.amr, req));
  }

  /** The registration page, with a new challenge sealed into the pending sign-in it carries. */
  private async enrolment(ctx: PageContext, request: Pending, user: UserView, status: number, notice?: Notice): Promise<FlowResult> {
    const { options, challenge } = await this.passkeys.registrationOptions(request.tenantId, user);
    const data = {
      action: `${this.directory.issuer(request.tenantId)}/mfa-passkey-enrol`,
      interaction: this.interactions.seal({ ...request, secondFactor: { ...request.secondFactor, passkeyChallenge: challenge } }),
      passkeyOptions: JSON.stringify(options),
      error: notice && fill(ctx.messages[notice.key], notice.vars),
    };
    return { kind: 'html', status, body: render('enrol-passkey', 'passkeyEnrol.title', data, ctx, PASSKEY_SCRIPT), ...pageImages(ctx.logoUrl) };
  }
}

/** The pending sign-in, when it is one that registers a passkey. */
function enrolling(request: Pending): Pending {
  if (!request.secondFactor.enrolWebauthn) throw new UserFacingError(new InvalidRequest('no passkey is being registered in this sign-in'));
  return request;
}
