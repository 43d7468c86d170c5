import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type RoleView, roleKey } from '../../../projections/roles.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { ifMatchRevision, sendEtag } from '../http/etag.js';
import { commandOrigin } from '../http/item-origin.js';
import { mergePatch } from '../http/merge-patch.js';
import { pageOf, pageQuery } from '../http/paging.js';
import { problems } from '../http/problem.js';
import { adminValidation, validated } from '../http/validation.js';
import { DeleteRole, SaveRole } from './role-commands.js';
import { roleDefinitionOf, RoleDto, roleRepresentation } from './role.dto.js';

/** `{issuer}/configuration/roles`: named sets of permissions, assigned to users (users/{id}/roles/{roleId}). */
@Controller(':tenant/configuration/roles')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class RolesController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  @Get()
  @RequireScope('central:read')
  async list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    const { limit, after } = pageQuery(req.query, []);
    const prefix = roleKey(tenantId, '');
    const docs = await this.reads.find<RoleView>('roles', {}, { idPrefix: prefix, ...(after !== undefined ? { afterId: prefix + after } : {}), sortBy: '_id', limit: limit + 1 });
    return pageOf(docs, limit, (r) => r.roleId, roleRepresentation);
  }

  @Post()
  @RequireScope('central:write')
  async create(@Param('tenant') tenantId: string, @Body() dto: RoleDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    await this.commands.execute(new SaveRole(commandOrigin(tenantId, p, req), roleDefinitionOf(dto), false));
    const role = await this.found(tenantId, dto.id);
    reply.status(201).header('location', `${this.directory.issuer(tenantId)}/configuration/roles/${encodeURIComponent(dto.id)}`);
    sendEtag(reply, role.revision);
    return roleRepresentation(role);
  }

  @Get(':roleId')
  @RequireScope('central:read')
  async get(@Param('tenant') tenantId: string, @Param('roleId') roleId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const role = await this.found(tenantId, roleId);
    sendEtag(reply, role.revision);
    return roleRepresentation(role);
  }

  /** RFC 7396 JSON Merge Patch: `permissions` is replaced whole (arrays are, in a merge patch); `id` cannot change. */
  @Patch(':roleId')
  @RequireScope('central:write')
  async patch(@Param('tenant') tenantId: string, @Param('roleId') roleId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const current = await this.found(tenantId, roleId);
    const { created_at: _c, updated_at: _u, ...editable } = roleRepresentation(current);
    const dto = validated(RoleDto, mergePatch(editable, req.body));
    if (dto.id !== roleId) throw problems.badRequest('id cannot change', [{ path: 'id', detail: 'cannot change' }]);
    await this.commands.execute(new SaveRole(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), roleDefinitionOf(dto), true));
    return this.get(tenantId, roleId, reply);
  }

  /** 409 while users hold the role. */
  @Delete(':roleId')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Param('roleId') roleId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.found(tenantId, roleId);
    await this.commands.execute(new DeleteRole(commandOrigin(tenantId, p, req, expectedRevision), roleId));
  }

  private async found(tenantId: string, roleId: string): Promise<RoleView> {
    const role = await this.reads.get<RoleView>('roles', roleKey(tenantId, roleId));
    if (!role) throw problems.notFound(`no role ${roleId}`);
    return role;
  }
}
