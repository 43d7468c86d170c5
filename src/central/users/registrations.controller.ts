import { type CanActivate, Controller, type ExecutionContext, Inject, Injectable, Post, Req, Res, UseGuards, UsePipes, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserView } from '../../../projections/users.projection.js';
import { CONFIG, type Config } from '../../config.js';
import { PasswordQueue } from '../../infrastructure/crypto/password-queue.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { TenantForms } from '../../shared/tenant-forms.js';
import { checkForm, FORM_FIELDS } from '../../domain/form/form-rules.js';
import { originOf } from '../../shared/request-origin.js';
import { actorOf, type AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { CreateUser } from '../commands/create-user.command.js';
import { sendEtag } from '../http/etag.js';
import { Problem, problems, type FieldError } from '../http/problem.js';
import { adminValidation, validated } from '../http/validation.js';
import { passwordProblem } from '../passwords/password-policy.js';
import { RegistrationLimits } from './registration-limits.js';
import { EditUser } from './user-commands.js';
import { claimsOf, UserDto, userRepresentation } from './user.dto.js';

/** Fields only an admin sets: a user cannot vouch for their own e-mail address. */
const ADMIN_ONLY = ['email_verified', 'disabled'] as const;

/**
 * Lets a request without an Authorization header through as anonymous; one with a token must
 * pass the admin guard (central:write, this tenant or the operator tenant).
 */
@Injectable()
class AnonymousOrAdmin implements CanActivate {
  constructor(@Inject(AdminGuard) private readonly admin: AdminGuard) {}

  canActivate(context: ExecutionContext): Promise<boolean> | boolean {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    return req.headers.authorization === undefined ? true : this.admin.canActivate(context);
  }
}

/**
 * `{issuer}/users/registrations`: self-service sign-up where the tenant enables it
 * (`registration_enabled`, off by default), throttled per source address; an admin token with
 * central:write creates a user here as `POST /configuration/users` does, whatever the setting.
 */
@Controller(':tenant/users/registrations')
@UseGuards(AnonymousOrAdmin)
@UsePipes(adminValidation)
export class RegistrationsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(RegistrationLimits) private readonly limits: RegistrationLimits,
    @Inject(PasswordQueue) private readonly passwords: PasswordQueue,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(TenantForms) private readonly forms: TenantForms,
  ) {}

  @Post()
  @RequireScope('central:write')
  async register(@Param('tenant') tenantId: string, @Principal() p: AdminPrincipal | undefined, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const origin = originOf(req);
    if (!p) {
      const tenant = await this.directory.tenant(tenantId);
      if (!tenant) throw problems.notFound('unknown tenant');
      if (!tenant.registrationEnabled) throw problems.forbidden('self-service registration is off at this tenant; an admin token with central:write may create users here');
    }
    const dto = validated(UserDto, req.body);
    const errors: FieldError[] = [];
    if (dto.password === undefined) errors.push({ path: 'password', detail: 'required' });
    if (!p) for (const k of ADMIN_ONLY) if (dto[k] !== undefined) errors.push({ path: k, detail: 'only an admin sets it' });
    // A self-service sign-up takes the fields of the tenant's registration form, by its rules, as the page does.
    if (!p) errors.push(...(await this.registrationFaults(tenantId, dto)));
    if (errors.length) throw problems.badRequest('the registration cannot be accepted as it is', errors);
    const password = dto.password!;
    const claims = claimsOf(dto);
    const weak = passwordProblem(password, { username: dto.username, email: claims.email }, this.config.signIn.passwordMinLength);
    if (weak) throw problems.badRequest(`password ${weak}`, [{ path: 'password', detail: weak }]);
    if (!p) {
      const spent = await this.limits.take(tenantId, origin.sourceIp, () => this.clock.now().getTime());
      if (spent) throw tooMany(Math.max(1, Math.ceil(spent.waitMs / 1000)), 'too many registrations from this address; try again later');
      // An anonymous sign-up does not queue for a password hash behind others; an admin's does.
      const full = this.passwords.refusal();
      if (full) throw new Problem(503, 'Service Unavailable', 'the server is busy; try again shortly', {}, { 'retry-after': String(full.retryAfterSeconds) });
    }
    const actor = p ? actorOf(p) : 'anonymous';
    const result: { created: boolean; userId: string } = await this.commands.execute(new CreateUser(tenantId, dto.username, password, claims, actor, origin));
    if (!result.created) throw problems.conflict(`the username ${dto.username} is taken, or was: a username is never given twice`);
    if (dto.disabled) await this.commands.execute(new EditUser({ tenantId, actor, origin }, result.userId, { disabled: true }, { username: dto.username }));
    const user = await this.found(tenantId, result.userId);
    reply.status(201);
    if (p) reply.header('location', `${this.directory.issuer(tenantId)}/configuration/users/${encodeURIComponent(result.userId)}`);
    sendEtag(reply, user.revision);
    return userRepresentation(user);
  }

  private async registrationFaults(tenantId: string, dto: UserDto): Promise<FieldError[]> {
    const form = await this.forms.form(tenantId, 'registration');
    const values: Record<string, string | undefined> = Object.fromEntries(FORM_FIELDS.registration.map((name) => [name, dto[name as keyof UserDto] as string | undefined]));
    return checkForm(form, values, Object.keys(values).filter((k) => values[k] !== undefined));
  }

  private async found(tenantId: string, userId: string): Promise<UserView> {
    const user = await this.directory.user(tenantId, userId);
    if (!user) throw problems.notFound(`no user ${userId}`);
    return user;
  }
}

/** RFC 6585 §4, with Retry-After (RFC 9110 §10.2.3) in seconds. */
function tooMany(retryAfter: number, detail: string): Problem {
  return new Problem(429, 'Too Many Requests', detail, {}, { 'retry-after': String(retryAfter) });
}
