import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type PermissionView, permissionKey } from '../../../projections/permissions.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { ifMatchRevision, sendEtag } from '../http/etag.js';
import { commandOrigin, stringFilter } from '../http/item-origin.js';
import { mergePatch } from '../http/merge-patch.js';
import { pageOf, pageQuery } from '../http/paging.js';
import { problems } from '../http/problem.js';
import { adminValidation, validated } from '../http/validation.js';
import { CreatePermission, DeletePermission, UpdatePermission } from './permission-commands.js';
import { permissionDefinitionOf, PermissionDto, permissionRepresentation } from './permission.dto.js';

/** `{issuer}/configuration/permissions`: named rights, each on one resource (or on `central`, the admin scopes). */
@Controller(':tenant/configuration/permissions')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class PermissionsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  /** Pages by id; `resource` keeps the permissions of that resource. */
  @Get()
  @RequireScope('central:read')
  async list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    const { limit, after } = pageQuery(req.query, ['resource']);
    const resource = stringFilter(req.query, 'resource', 128, (d) => problems.badRequest(d, [{ path: 'resource', detail: d }]));
    const prefix = permissionKey(tenantId, '');
    const filter: Record<string, string> = resource !== undefined ? { tenantId, resource } : {};
    const docs = await this.reads.find<PermissionView>('permissions', filter, { idPrefix: prefix, ...(after !== undefined ? { afterId: prefix + after } : {}), sortBy: '_id', limit: limit + 1 });
    return pageOf(docs, limit, (x) => x.permissionId, permissionRepresentation);
  }

  @Post()
  @RequireScope('central:write')
  async create(@Param('tenant') tenantId: string, @Body() dto: PermissionDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    await this.commands.execute(new CreatePermission(commandOrigin(tenantId, p, req), permissionDefinitionOf(dto)));
    const permission = await this.found(tenantId, dto.id);
    reply.status(201).header('location', `${this.directory.issuer(tenantId)}/configuration/permissions/${encodeURIComponent(dto.id)}`);
    sendEtag(reply, permission.revision);
    return permissionRepresentation(permission);
  }

  @Get(':permissionId')
  @RequireScope('central:read')
  async get(@Param('tenant') tenantId: string, @Param('permissionId') permissionId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const permission = await this.found(tenantId, permissionId);
    sendEtag(reply, permission.revision);
    return permissionRepresentation(permission);
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
    const current = await this.found(tenantId, permissionId);
    const { created_at: _c, updated_at: _u, ...editable } = permissionRepresentation(current);
    const dto = validated(PermissionDto, mergePatch(editable, req.body));
    for (const [field, was] of [['id', permissionId], ['resource', current.resource]] as const) {
      if (dto[field] !== was) throw problems.badRequest(`${field} cannot change`, [{ path: field, detail: 'cannot change' }]);
    }
    await this.commands.execute(new UpdatePermission(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), permissionDefinitionOf(dto)));
    return this.get(tenantId, permissionId, reply);
  }

  /** 409 while a role includes the permission. */
  @Delete(':permissionId')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Param('permissionId') permissionId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.found(tenantId, permissionId);
    await this.commands.execute(new DeletePermission(commandOrigin(tenantId, p, req, expectedRevision), permissionId));
  }

  private async found(tenantId: string, permissionId: string): Promise<PermissionView> {
    const permission = await this.reads.get<PermissionView>('permissions', permissionKey(tenantId, permissionId));
    if (!permission) throw problems.notFound(`no permission ${permissionId}`);
    return permission;
  }
}
