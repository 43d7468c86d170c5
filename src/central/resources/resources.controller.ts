import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ResourceView, resourceKey } from '../../../projections/resources.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { ifMatchRevision } from '../http/etag.js';
import { commandOrigin } from '../http/item-origin.js';
import { type ItemKind, TenantItems } from '../http/tenant-items.js';
import { adminValidation } from '../http/validation.js';
import { CreateResource, DeleteResource, UpdateResource } from './resource-commands.js';
import { resourceDefinitionOf, ResourceDto, resourceRepresentation } from './resource.dto.js';

const RESOURCES: ItemKind<ResourceView> = { view: 'resources', path: 'resources', noun: 'resource', key: resourceKey, idOf: (r) => r.resourceId, render: resourceRepresentation };

/**
 * `{issuer}/configuration/resources`: the tenant's APIs (resource servers). An identifier (the
 * `aud` of tokens for the resource) is never given to another resource, even once its resource
 * is deleted.
 */
@Controller(':tenant/configuration/resources')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class ResourcesController {
  private readonly items: TenantItems<ResourceView>;

  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) reads: ReadStore,
    @Inject(Directory) directory: Directory,
  ) {
    this.items = new TenantItems(reads, directory, RESOURCES);
  }

  /** Pages by id; `identifier` keeps the one resource with exactly that identifier. */
  @Get()
  @RequireScope('central:read')
  list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    return this.items.page(tenantId, req.query, { name: 'identifier', maxLength: 2048 });
  }

  @Post()
  @RequireScope('central:write')
  async create(@Param('tenant') tenantId: string, @Body() dto: ResourceDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    await this.commands.execute(new CreateResource(commandOrigin(tenantId, p, req), resourceDefinitionOf(dto)));
    return this.items.created(reply, tenantId, dto.id);
  }

  @Get(':resourceId')
  @RequireScope('central:read')
  get(@Param('tenant') tenantId: string, @Param('resourceId') resourceId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.items.shown(reply, tenantId, resourceId);
  }

  /** RFC 7396 JSON Merge Patch of the resource's representation; `id` and `identifier` cannot change. */
  @Patch(':resourceId')
  @RequireScope('central:write')
  async patch(
    @Param('tenant') tenantId: string,
    @Param('resourceId') resourceId: string,
    @Principal() p: AdminPrincipal,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const current = await this.items.found(tenantId, resourceId);
    const dto = this.items.patched(current, req.body, ResourceDto, { id: resourceId, identifier: current.identifier });
    await this.commands.execute(new UpdateResource(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), resourceDefinitionOf(dto)));
    return this.items.shown(reply, tenantId, resourceId);
  }

  /** 409 while permissions are defined on the resource. */
  @Delete(':resourceId')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Param('resourceId') resourceId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.items.found(tenantId, resourceId);
    await this.commands.execute(new DeleteResource(commandOrigin(tenantId, p, req, expectedRevision), resourceId));
  }
}
