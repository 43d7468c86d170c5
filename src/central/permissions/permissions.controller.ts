import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type PermissionView, permissionKey } from '../../../projections/permissions.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { ifMatchRevision } from '../http/etag.js';
import { commandOrigin } from '../http/item-origin.js';
import { type ItemKind, TenantItems } from '../http/tenant-items.js';
import { adminValidation } from '../http/validation.js';
import { CreatePermission, DeletePermission, UpdatePermission } from './permission-commands.js';
import { permissionDefinitionOf, PermissionDto, permissionRepresentation } from './permission.dto.js';

const PERMISSIONS: ItemKind<PermissionView> = { view: 'permissions', path: 'permissions', noun: 'permission', key: permissionKey, idOf: (x) => x.permissionId, render: permissionRepresentation };

/** `{issuer}/configuration/permissions`: named rights, each on one resource (or on `central`, the admin scopes). */
@Controller(':tenant/configuration/permissions')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class PermissionsController {
  private readonly items: TenantItems<PermissionView>;

  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) reads: ReadStore,
    @Inject(Directory) directory: Directory,
  ) {
    this.items = new TenantItems(reads, directory, PERMISSIONS);
  }

  /** Pages by id; `resource` keeps the permissions of that resource. */
  @Get()
  @RequireScope('central:read')
  list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    return this.items.page(tenantId, req.query, { name: 'resource', maxLength: 128 });
  }

  @Post()
  @RequireScope('central:write')
  async create(@Param('tenant') tenantId: string, @Body() dto: PermissionDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    await this.commands.execute(new CreatePermission(commandOrigin(tenantId, p, req), permissionDefinitionOf(dto)));
    return this.items.created(reply, tenantId, dto.id);
  }

  @Get(':permissionId')
  @RequireScope('central:read')
  get(@Param('tenant') tenantId: string, @Param('permissionId') permissionId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.items.shown(reply, tenantId, permissionId);
  }

  /** RFC 7396 JSON Merge Patch: the description; `id` and `resource` cannot change. */
  @Patch(':permissionId')
  @RequireScope('central:write')
  async patch(
    @Param('tenant') tenantId: string,
    @Param('permissionId') permissionId: string,
    @Principal() p: AdminPrincipal,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const current = await this.items.found(tenantId, permissionId);
    const dto = this.items.patched(current, req.body, PermissionDto, { id: permissionId, resource: current.resource });
    await this.commands.execute(new UpdatePermission(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), permissionDefinitionOf(dto)));
    return this.items.shown(reply, tenantId, permissionId);
  }

  /** 409 while a role includes the permission. */
  @Delete(':permissionId')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Param('permissionId') permissionId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.items.found(tenantId, permissionId);
    await this.commands.execute(new DeletePermission(commandOrigin(tenantId, p, req, expectedRevision), permissionId));
  }
}
