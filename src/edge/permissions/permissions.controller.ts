import { Controller, Get, Header, Inject, Param, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { InvalidRequest } from '../../auth/oauth-errors.js';
import { ITEM_ID } from '../../domain/resource/resource.decider.js';
import { ViewSync } from '../../infrastructure/read-store/view-sync.js';
import { Directory } from '../../shared/directory.js';
import { EdgeCallers } from '../caller.js';
import { EffectivePermissions } from './effective-permissions.js';

/**
 * `{issuer}/permissions/me`: the caller's roles and the permissions they bring, all or (with
 * `?resource=`) those on one resource. The caller is an access token's user, or the browser's
 * edge session; a client's own token (no user) holds the roles given to the client.
 */
@Controller(':tenant/permissions')
export class PermissionsController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(EdgeCallers) private readonly callers: EdgeCallers,
    @Inject(EffectivePermissions) private readonly effective: EffectivePermissions,
    @Inject(ViewSync) private readonly views: ViewSync,
  ) {}

  @Get('me')
  @Header('cache-control', 'no-store')
  async me(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<Record<string, unknown>> {
    // A role change made through the admin API, by whichever process, shows on the next request:
    // a token's check brings the views up to the log's head itself; the cookie's needs this.
    if (req.headers.authorization === undefined) await this.views.catchUp();
    const tenant = await this.directory.requireTenant(tenantId);
    const query = (req.query ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(query).filter((k) => k !== 'resource');
    if (unknown.length) throw new InvalidRequest(`unknown parameter ${unknown[0].slice(0, 40)}`);
    const resource = query.resource;
    if (resource !== undefined && (typeof resource !== 'string' || !ITEM_ID.test(resource))) throw new InvalidRequest('resource must be one resource id');
    const caller = await this.callers.of(tenant, req, { cookie: true });
    const access = await this.effective.forCaller(tenant.tenantId, caller);
    const permissions = resource === undefined ? access.permissions : access.permissions.filter((p) => p.resource === resource);
    const roles = resource === undefined ? access.roles : access.roles.filter((r) => permissions.some((p) => p.roles.includes(r)));
    return {
      sub: caller.sub,
      ...(caller.clientId !== undefined ? { client_id: caller.clientId } : {}),
      ...(resource !== undefined ? { resource } : {}),
      roles,
      permissions: permissions.map((p) => ({ id: p.id, resource: p.resource, roles: p.roles })),
    };
  }
}
