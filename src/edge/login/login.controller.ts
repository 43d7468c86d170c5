import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type FlowResult, pageImages, sendFlowResult } from '../../auth/authorize/flow-result.js';
import { type AuthorizationRequest, Interactions } from '../../auth/authorize/interaction.js';
import { formParams } from '../../auth/form-request.js';
import { InvalidRequest, UserFacingError } from '../../auth/oauth-errors.js';
import { readParams } from '../../auth/params.js';
import { Directory } from '../../shared/directory.js';
import { type PageContext, fill, render } from '../../shared/html.js';
import { PageContexts } from '../pages/page-contexts.js';
import type { FormField } from '../../domain/form/form.events.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { MessageKey } from '../pages/messages.en.js';
import { DeviceCookies } from './device-cookie.js';
import type { Refusal } from './sign-in-limits.js';
import { PasswordSignIn } from './password-sign-in.js';
import { SecondFactors } from '../challenges/second-factors.js';
import { SignInCompletion } from './sign-in-completion.js';
import { originOf } from '../../shared/request-origin.js';

/** What a sign-in held up by each limit is told. */
const REFUSALS: Record<Refusal['limit'], MessageKey> = {
  username: 'signIn.limit.username',
  address: 'signIn.limit.address',
  tenant: 'signIn.limit.tenant',
};

/** A text of the sign-in page's catalogue, with the values it names. */
interface Notice {
  key: MessageKey;
  vars?: Record<string, string | number>;
}

/**
 * The tenant's sign-in page: a plain form (username, password) that works without
 * JavaScript. A failed attempt says only that the pair was wrong.
 */
@Controller(':tenant')
export class LoginController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Interactions) private readonly interactions: Interactions,
    @Inject(DeviceCookies) private readonly devices: DeviceCookies,
    @Inject(PageContexts) private readonly locales: PageContexts,
    @Inject(PasswordSignIn) private readonly signIn: PasswordSignIn,
    // MFA: second factors, and the end of a sign-in shared with their pages.
    @Inject(SecondFactors) private readonly factors: SecondFactors,
    @Inject(SignInCompletion) private readonly completion: SignInCompletion,
  ) {}

  @Get('login')
  async show(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = await this.directory.requireTenant(tenantId);
    const sealed = readParams(req.query).interaction;
    const request = this.pending(tenantId, sealed, req.headers.cookie);
    const page = await this.page(tenant, req, request);
    sendFlowResult(reply, this.form(page, sealed!, request.loginHint ?? '', 200));
  }

  @Post('login')
  async submit(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = await this.directory.requireTenant(tenantId);
    const origin = originOf(req);
    const params = formParams(req);
    const request = this.pending(tenantId, params.interaction, req.headers.cookie);
    const username = params.username ?? '';
    const page = await this.page(tenant, req, request);
    // A browser that signed in as this username before is counted on its own, so guesses from
    // elsewhere do not hold it up, until it has failed as often itself (OWASP: device cookies).
    const device = this.devices.recognise(tenantId, username, req.headers.cookie);
    const outcome = await this.signIn.check({ tenantId, clientId: request.clientId, username, password: params.password ?? '', usernameRule: page.username, device, origin });
    if (outcome.kind === 'busy' || outcome.kind === 'limited') {
      const seconds = outcome.retryAfterSeconds;
      reply.header('retry-after', String(seconds));
      const key = outcome.kind === 'busy' ? 'signIn.busy' : REFUSALS[outcome.limit];
      sendFlowResult(reply, this.form(page, params.interaction!, username, 429, { key, vars: { seconds } }));
      return;
    }
    if (outcome.kind === 'wrong') {
      // 400, not 401: a form is no HTTP authentication scheme, and a 401 must name one (RFC 9110 §15.5.2).
      sendFlowResult(reply, this.form(page, params.interaction!, username, 400, { key: 'signIn.wrongCredentials' }));
      outcome.recordFailure?.();
      return;
    }
    const { user } = outcome;
    // MFA: a second factor due for this client goes to its page, the password proved in the sealed request.
    const need = await this.factors.need(tenantId, request.clientId, user, request.acrValues);
    if (need.kind === 'unavailable') {
      sendFlowResult(reply, this.form(page, params.interaction!, username, 400, { key: 'challenge.unavailable' }));
      return;
    }
    if (need.kind !== 'none') {
      const enrolTotp = need.kind === 'enrol-totp' ? (await this.factors.beginEnrolment(tenantId, user)).sealedTotpSecret : undefined;
      const enrolWebauthn = need.kind === 'enrol-webauthn';
      // A missing required factor of a user who can prove another waits for that proof (`thenEnrol`).
      const thenEnrol = need.kind === 'prove' ? need.thenEnrol : undefined;
      const pending = this.interactions.seal({ ...request, secondFactor: { userId: user.userId, factors: need.kind === 'prove' ? need.factors : [], ...(enrolTotp ? { enrolTotp } : {}), ...(enrolWebauthn ? { enrolWebauthn } : {}), ...(thenEnrol ? { thenEnrol } : {}) } });
      const path = enrolTotp ? 'mfa-enrol' : enrolWebauthn ? 'mfa-passkey-enrol' : 'mfa';
      sendFlowResult(reply, { kind: 'redirect', location: `${this.directory.issuer(tenantId)}/${path}?interaction=${encodeURIComponent(pending)}` });
      return;
    }
    const { sessionId, cookies } = await this.completion.signIn(tenantId, request, user, this.factors.passwordOnly(), req.headers.cookie, origin);
    sendFlowResult(reply, await this.completion.resume(tenant, request, sessionId, cookies, origin));
  }

  /** The pending request, only in the browser that started it. */
  private pending(tenantId: string, sealed: string | undefined, cookieHeader: string | undefined): AuthorizationRequest {
    const request = this.interactions.open(tenantId, sealed, cookieHeader);
    if (!request) {
      throw new UserFacingError(new InvalidRequest('this sign-in link has expired or belongs to another browser; start again from the application'));
    }
    return request;
  }

  /** What every rendering of the form needs: the language and logo, the username's rules, and whether to offer registration. */
  private async page(tenant: TenantView, req: FastifyRequest, request: AuthorizationRequest): Promise<SignInPage> {
    const [ctx, username] = await Promise.all([this.locales.context(tenant.tenantId, req, request.uiLocales), this.signIn.usernameRule(tenant.tenantId)]);
    return { tenantId: tenant.tenantId, ctx, username, registration: tenant.registrationEnabled && !request.device };
  }

  private form(page: SignInPage, sealed: string, username: string, status: number, error?: Notice): FlowResult {
    const { ctx } = page;
    const data = {
      action: `${this.directory.issuer(page.tenantId)}/login`,
      interaction: sealed,
      username,
      rules: page.username,
      register: page.registration ? `register?interaction=${encodeURIComponent(sealed)}` : undefined,
      error: error && fill(ctx.messages[error.key], error.vars),
    };
    return { kind: 'html', status, body: render('sign-in', 'signIn.title', data, ctx), ...pageImages(ctx.logoUrl) };
  }
}

interface SignInPage {
  tenantId: string;
  ctx: PageContext;
  username: FormField;
  registration: boolean;
}
