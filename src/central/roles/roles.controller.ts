import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type RoleView, roleKey } from '../../../projections/roles.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { ifMatchRevision } from '../http/etag.js';
import { commandOrigin } from '../http/item-origin.js';
import { type ItemKind, TenantItems } from '../http/tenant-items.js';
import { adminValidation } from '../http/validation.js';
import { DeleteRole, SaveRole } from './role-commands.js';
import { roleDefinitionOf, RoleDto, roleRepresentation } from './role.dto.js';

const ROLES: ItemKind<RoleView> = { view: 'roles', path: 'roles', noun: 'role', key: roleKey, idOf: (r) => r.roleId, render: roleRepresentation };

/** `{issuer}/configuration/roles`: named sets of permissions, assigned to users (users/{id}/roles/{roleId}). */
@Controller(':tenant/configuration/roles')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class RolesController {
  private readonly items: TenantItems<RoleView>;

  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) reads: ReadStore,
    @Inject(Directory) directory: Directory,
  ) {
    this.items = new TenantItems(reads, directory, ROLES);
  }

  @Get()
  @RequireScope('central:read')
  list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    return this.items.page(tenantId, req.query);
  }

  @Post()
  @RequireScope('central:write')
  async create(@Param('tenant') tenantId: string, @Body() dto: RoleDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    await this.commands.execute(new SaveRole(commandOrigin(tenantId, p, req), roleDefinitionOf(dto), false));
    return this.items.created(reply, tenantId, dto.id);
  }

  @Get(':roleId')
  @RequireScope('central:read')
  get(@Param('tenant') tenantId: string, @Param('roleId') roleId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.items.shown(reply, tenantId, roleId);
  }

  /** RFC 7396 JSON Merge Patch: `permissions` is replaced whole (arrays are, in a merge patch); `id` cannot change. */
  @Patch(':roleId')
  @RequireScope('central:write')
  async patch(@Param('tenant') tenantId: string, @Param('roleId') roleId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const current = await this.items.found(tenantId, roleId);
    const dto = this.items.patched(current, req.body, RoleDto, { id: roleId });
    await this.commands.execute(new SaveRole(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), roleDefinitionOf(dto), true));
    return this.items.shown(reply, tenantId, roleId);
  }

  /** 409 while users hold the role. */
  @Delete(':roleId')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Param('roleId') roleId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.items.found(tenantId, roleId);
    await this.commands.execute(new DeleteRole(commandOrigin(tenantId, p, req, expectedRevision), roleId));
  }
}
