import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TenantView } from '../../../projections/tenants.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import { originOf } from '../../shared/request-origin.js';
import { actorOf, type AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { CreateTenant } from '../commands/create-tenant.command.js';
import { ifMatchRevision, sendEtag } from '../http/etag.js';
import { mergePatch } from '../http/merge-patch.js';
import { pageOf, pageQuery } from '../http/paging.js';
import { problems } from '../http/problem.js';
import { adminValidation, validated } from '../http/validation.js';
import { ChangeTenantSettings, DeleteTenant } from './tenant-commands.js';
import { SystemSettings } from '../system/system-settings.controller.js';
import { settingsOf, settingsRepresentation, TenantDto, TenantSettingsDto, tenantRepresentation } from './tenant.dto.js';

/** Reads a tenant, or 404. */
async function found(directory: Directory, tenantId: string): Promise<TenantView> {
  const tenant = await directory.tenant(tenantId);
  if (!tenant) throw problems.notFound(`no tenant ${tenantId}`);
  return tenant;
}

/** RFC 7396 merge patch of a tenant's settings, at the revision `If-Match` names (or the one just read). */
async function patchSettings(commands: CommandBus, directory: Directory, system: SystemSettings, tenantId: string, p: AdminPrincipal, req: FastifyRequest): Promise<TenantView> {
  const expectedRevision = ifMatchRevision(req);
  const current = await found(directory, tenantId);
  const dto = validated(TenantSettingsDto, mergePatch(settingsRepresentation(current), req.body));
  // A setting reset with null takes the deployment's default for new tenants, or the built-in one.
  const { tenantDefaults } = await system.current();
  await commands.execute(new ChangeTenantSettings({ tenantId, actor: actorOf(p), origin: originOf(req), expectedRevision: expectedRevision ?? current.revision }, settingsOf(dto, tenantDefaults)));
  return found(directory, tenantId);
}

/**
 * `$PUBLIC_URL/configuration/tenants`: every tenant of the deployment, for the operator tenant's
 * tokens only (AdminGuard lets no other through a route that names no tenant).
 */
@Controller('configuration/tenants')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class TenantsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(SystemSettings) private readonly system: SystemSettings,
  ) {}

  @Get()
  @RequireScope('central:read')
  async list(@Req() req: FastifyRequest): Promise<unknown> {
    const { limit, after } = pageQuery(req.query);
    const docs = await this.reads.find<TenantView>('tenants', {}, { ...(after !== undefined ? { afterId: after } : {}), sortBy: '_id', limit: limit + 1 });
    return pageOf(docs, limit, (t) => t.tenantId, tenantRepresentation);
  }

  @Post()
  @RequireScope('central:write')
  async create(@Body() dto: TenantDto, @Principal() p: AdminPrincipal, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const result = await this.commands.execute(new CreateTenant(dto.id, settingsOf(dto, (await this.system.current()).tenantDefaults), actorOf(p)));
    if (!result.created) throw problems.conflict(`a tenant ${dto.id} exists`);
    const tenant = await found(this.directory, dto.id);
    reply.status(201).header('location', `${this.directory.base()}/configuration/tenants/${dto.id}`);
    sendEtag(reply, tenant.revision);
    return tenantRepresentation(tenant);
  }

  @Get(':id')
  @RequireScope('central:read')
  async get(@Param('id') tenantId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const tenant = await found(this.directory, tenantId);
    sendEtag(reply, tenant.revision);
    return tenantRepresentation(tenant);
  }

  @Patch(':id')
  @RequireScope('central:write')
  async patch(@Param('id') tenantId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const tenant = await patchSettings(this.commands, this.directory, this.system, tenantId, p, req);
    sendEtag(reply, tenant.revision);
    return tenantRepresentation(tenant);
  }

  @Delete(':id')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('id') tenantId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await found(this.directory, tenantId);
    await this.commands.execute(new DeleteTenant({ tenantId, actor: actorOf(p), origin: originOf(req), ...(expectedRevision !== undefined ? { expectedRevision } : {}) }));
  }
}

/** `{issuer}/configuration/settings`: the tenant's own settings (token lifetimes, signing algorithm, security profile, sessions). */
@Controller(':tenant/configuration/settings')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class TenantSettingsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(SystemSettings) private readonly system: SystemSettings,
  ) {}

  @Get()
  @RequireScope('central:read')
  async get(@Param('tenant') tenantId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const tenant = await found(this.directory, tenantId);
    sendEtag(reply, tenant.revision);
    return settingsRepresentation(tenant);
  }

  @Patch()
  @RequireScope('central:write')
  async patch(@Param('tenant') tenantId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const tenant = await patchSettings(this.commands, this.directory, this.system, tenantId, p, req);
    sendEtag(reply, tenant.revision);
    return settingsRepresentation(tenant);
  }
}
