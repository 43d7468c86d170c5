import { Controller, Get, Inject, NotFoundException, Param, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TenantView } from '../../../projections/tenants.projection.js';
import { type FlowResult, pageImages, sendFlowResult } from '../../auth/authorize/flow-result.js';
import { type AuthorizationRequest, Interactions } from '../../auth/authorize/interaction.js';
import { formParams } from '../../auth/form-request.js';
import { InvalidRequest, UserFacingError } from '../../auth/oauth-errors.js';
import { readParams } from '../../auth/params.js';
import { CreateUser } from '../../central/commands/create-user.command.js';
import { Problem } from '../../central/http/problem.js';
import { validated } from '../../central/http/validation.js';
import { passwordProblem } from '../../central/passwords/password-policy.js';
import { RegistrationLimits } from '../../central/users/registration-limits.js';
import { claimsOf, UserDto } from '../../central/users/user.dto.js';
import { CONFIG, type Config } from '../../config.js';
import { checkField } from '../../domain/form/form-rules.js';
import type { FormDefinition } from '../../domain/form/form.events.js';
import { PasswordQueue } from '../../infrastructure/crypto/password-queue.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { fill, type PageContext, render } from '../../shared/html.js';
import { originOf } from '../../shared/request-origin.js';
import { TenantForms } from '../../shared/tenant-forms.js';
import type { MessageKey } from '../pages/messages.en.js';
import { PageContexts } from '../pages/page-contexts.js';

/** How each field of the registration form is typed and filled in by browsers. */
const INPUTS: Record<string, { type: string; autocomplete: string }> = {
  username: { type: 'text', autocomplete: 'username' },
  email: { type: 'email', autocomplete: 'email' },
  name: { type: 'text', autocomplete: 'name' },
  given_name: { type: 'text', autocomplete: 'given-name' },
  family_name: { type: 'text', autocomplete: 'family-name' },
};

/**
 * The registration page, reached from the sign-in page of an authorization request where the
 * tenant enables self-service registration (`registration_enabled`). It is protected as the
 * sign-in form is: its POST carries the sealed pending request, honoured only in the browser
 * whose SameSite cookie started it, so no other site can post it. It takes the fields of the
 * tenant's registration form by the form's rules (the same ones `{issuer}/users/registrations`
 * applies), then links the sign-in form with the new username filled in.
 */
@Controller(':tenant')
export class RegistrationController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Interactions) private readonly interactions: Interactions,
    @Inject(PageContexts) private readonly contexts: PageContexts,
    @Inject(TenantForms) private readonly forms: TenantForms,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(RegistrationLimits) private readonly limits: RegistrationLimits,
    @Inject(PasswordQueue) private readonly passwords: PasswordQueue,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Get('register')
  async show(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = await this.enabled(tenantId);
    const sealed = readParams(req.query).interaction;
    const request = this.pending(tenantId, sealed, req.headers.cookie);
    const [ctx, form] = await Promise.all([this.contexts.context(tenant.tenantId, req, request.uiLocales), this.forms.form(tenantId, 'registration')]);
    sendFlowResult(reply, this.page(tenantId, ctx, form, sealed!, {}, {}, 200));
  }

  @Post('register')
  async submit(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = await this.enabled(tenantId);
    const params = formParams(req);
    const request = this.pending(tenantId, params.interaction, req.headers.cookie);
    const [ctx, form] = await Promise.all([this.contexts.context(tenant.tenantId, req, request.uiLocales), this.forms.form(tenantId, 'registration')]);
    const values: Record<string, string> = {};
    for (const f of form.fields) if (params[f.name]) values[f.name] = params[f.name]!;
    const show = (status: number, faults: Record<string, string>, error?: MessageKey, vars: Record<string, number> = {}) =>
      sendFlowResult(reply, this.page(tenantId, ctx, form, params.interaction!, values, faults, status, error && fill(ctx.messages[error], vars)));

    const faults: Record<string, string> = {};
    for (const f of form.fields) {
      const fault = checkField(f, values[f.name]);
      if (fault) faults[f.name] = fill(ctx.messages[`form.${fault.fault}`], { limit: fault.limit ?? '' });
    }
    const password = params.password ?? '';
    let dto: UserDto | undefined;
    try {
      dto = validated(UserDto, { ...values, password: password || undefined });
    } catch (e) {
      if (!(e instanceof Problem)) throw e;
      for (const { path } of (e.extensions.errors ?? []) as Array<{ path: string }>) {
        if (path in INPUTS && !faults[path]) faults[path] = path === 'email' ? ctx.messages['registration.invalidEmail'] : ctx.messages['form.pattern'];
      }
    }
    const weak = password ? passwordProblem(password, { username: values.username ?? '', email: values.email }, this.config.signIn.passwordMinLength) : 'required';
    const passwordFault = weak ? (password ? ctx.messages['registration.weakPassword'] : ctx.messages['form.required']) : undefined;
    if (Object.keys(faults).length || passwordFault || !dto) return show(400, { ...faults, ...(passwordFault ? { password: passwordFault } : {}) }, 'registration.invalid');

    const origin = originOf(req);
    const spent = await this.limits.take(tenantId, origin.sourceIp, () => this.clock.now().getTime());
    if (spent) {
      reply.header('retry-after', String(Math.max(1, Math.ceil(spent.waitMs / 1000))));
      return show(429, {}, 'registration.tooMany');
    }
    const full = this.passwords.refusal();
    if (full) {
      reply.header('retry-after', String(full.retryAfterSeconds));
      return show(429, {}, 'signIn.busy', { seconds: full.retryAfterSeconds });
    }
    const result: { created: boolean } = await this.commands.execute(new CreateUser(tenantId, dto.username, password, claimsOf(dto), 'anonymous', origin));
    if (!result.created) return show(409, { username: ctx.messages['registration.taken'] });
    // On to the sign-in form of the same request, the new username filled in.
    const next = this.interactions.seal({ ...request, loginHint: dto.username });
    const body = render('registered', 'registration.doneTitle', { signIn: `login?interaction=${encodeURIComponent(next)}` }, ctx);
    sendFlowResult(reply, { kind: 'html', status: 200, body, ...pageImages(ctx.logoUrl) });
  }

  /** The tenant, when it takes self-service registrations; a 404 page otherwise (the page does not exist there). */
  private async enabled(tenantId: string): Promise<TenantView> {
    const tenant = await this.directory.requireTenant(tenantId);
    if (!tenant.registrationEnabled) throw new NotFoundException();
    return tenant;
  }

  private pending(tenantId: string, sealed: string | undefined, cookieHeader: string | undefined): AuthorizationRequest {
    const request = this.interactions.open(tenantId, sealed, cookieHeader);
    if (!request) throw new UserFacingError(new InvalidRequest('this registration link has expired or belongs to another browser; start again from the application'));
    return request;
  }

  private page(tenantId: string, ctx: PageContext, form: FormDefinition, sealed: string, values: Record<string, string>, faults: Record<string, string>, status: number, error?: string): FlowResult {
    const fields = form.fields.map((f) => ({ ...f, ...INPUTS[f.name], value: values[f.name] ?? '', fault: faults[f.name] }));
    const data = { action: `${this.directory.issuer(tenantId)}/register`, interaction: sealed, fields, passwordFault: faults.password, error };
    return { kind: 'html', status, body: render('registration', 'registration.title', data, ctx), ...pageImages(ctx.logoUrl) };
  }
}
