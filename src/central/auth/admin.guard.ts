import { type CanActivate, createParamDecorator, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import type { AdminScope } from '../../auth/scopes.js';
import { Directory } from '../../shared/directory.js';
import { problems } from '../http/problem.js';
import type { AdminPrincipal } from './admin-principal.js';

const SCOPE = 'admin:scope';

/** The scope a route needs (`central:read`, `central:write` or `central:audit`). */
export const RequireScope = (scope: AdminScope) => SetMetadata(SCOPE, scope);

/** The caller of an admin route, as the guard let it through. */
export const Principal = createParamDecorator((_: unknown, ctx: ExecutionContext): AdminPrincipal => ctx.switchToHttp().getRequest<{ user: AdminPrincipal }>().user);

/** Passport's `admin-bearer` strategy; its errors (401, 400) reach the caller as they are. */
@Injectable()
class BearerGuard extends AuthGuard('admin-bearer') {
  override handleRequest<T>(err: unknown, user: T): T {
    if (err) throw err;
    if (!user) throw problems.tokenRequired();
    return user;
  }
}

/**
 * Who may call an admin route: a valid token (BearerGuard), with the route's scope, issued in
 * the tenant the route names — or in the operator tenant, whose tokens act on every tenant and
 * alone on the routes outside tenants. Another tenant's token gets 403 and no data; a tenant
 * that does not exist, 404 (only once the caller may know).
 */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly bearer = new BearerGuard();

  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.bearer.canActivate(context);
    const req = context.switchToHttp().getRequest<FastifyRequest & { user: AdminPrincipal }>();
    const principal = req.user;
    const scope = this.reflector.getAllAndOverride<AdminScope | undefined>(SCOPE, [context.getHandler(), context.getClass()]);
    if (!scope) throw new Error('admin route without a required scope');
    if (!principal.scopes.includes(scope)) throw problems.insufficientScope(scope);
    const tenantId = (req.params as Record<string, string | undefined>).tenant;
    if (tenantId === undefined) {
      if (!principal.operator) throw problems.forbidden('only the operator tenant manages tenants and system settings');
      return true;
    }
    if (tenantId !== principal.tenantId && !principal.operator) throw problems.forbidden('the access token was issued by another tenant');
    if (!(await this.directory.tenant(tenantId))) throw problems.notFound('unknown tenant');
    return true;
  }
}
