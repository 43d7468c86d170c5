import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ResourceView, resourceKey } from '../../../projections/resources.projection.js';
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
import { CreateResource, DeleteResource, UpdateResource } from './resource-commands.js';
import { resourceDefinitionOf, ResourceDto, resourceRepresentation } from './resource.dto.js';

/**
 * `{issuer}/configuration/resources`: the tenant's APIs (resource servers). An identifier (the
 * `aud` of tokens for the resource) is never given to another resource, even once its resource
 * is deleted.
 */
@Controller(':tenant/configuration/resources')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class ResourcesController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  /** Pages by id; `identifier` keeps the one resource with exactly that identifier. */
  @Get()
  @RequireScope('central:read')
  async list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    const { limit, after } = pageQuery(req.query, ['identifier']);
    const identifier = stringFilter(req.query, 'identifier', 2048, (d) => problems.badRequest(d, [{ path: 'identifier', detail: d }]));
    const prefix = resourceKey(tenantId, '');
    const filter: Record<string, string> = identifier !== undefined ? { tenantId, identifier } : {};
    const docs = await this.reads.find<ResourceView>('resources', filter, { idPrefix: prefix, ...(after !== undefined ? { afterId: prefix + after } : {}), sortBy: '_id', limit: limit + 1 });
    return pageOf(docs, limit, (r) => r.resourceId, resourceRepresentation);
  }

  @Post()
  @RequireScope('central:write')
  async create(@Param('tenant') tenantId: string, @Body() dto: ResourceDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    await this.commands.execute(new CreateResource(commandOrigin(tenantId, p, req), resourceDefinitionOf(dto)));
    const resource = await this.found(tenantId, dto.id);
    reply.status(201).header('location', `${this.directory.issuer(tenantId)}/configuration/resources/${encodeURIComponent(dto.id)}`);
    sendEtag(reply, resource.revision);
    return resourceRepresentation(resource);
  }

  @Get(':resourceId')
  @RequireScope('central:read')
  async get(@Param('tenant') tenantId: string, @Param('resourceId') resourceId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const resource = await this.found(tenantId, resourceId);
    sendEtag(reply, resource.revision);
    return resourceRepresentation(resource);
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
    const current = await this.found(tenantId, resourceId);
    const { created_at: _c, updated_at: _u, ...editable } = resourceRepresentation(current);
    const dto = validated(ResourceDto, mergePatch(editable, req.body));
    for (const [field, was] of [['id', resourceId], ['identifier', current.identifier]] as const) {
      if (dto[field] !== was) throw problems.badRequest(`${field} cannot change`, [{ path: field, detail: 'cannot change' }]);
    }
    await this.commands.execute(new UpdateResource(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), resourceDefinitionOf(dto)));
    return this.get(tenantId, resourceId, reply);
  }

  /** 409 while permissions are defined on the resource. */
  @Delete(':resourceId')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Param('resourceId') resourceId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.found(tenantId, resourceId);
    await this.commands.execute(new DeleteResource(commandOrigin(tenantId, p, req, expectedRevision), resourceId));
  }

  private async found(tenantId: string, resourceId: string): Promise<ResourceView> {
    const resource = await this.reads.get<ResourceView>('resources', resourceKey(tenantId, resourceId));
    if (!resource) throw problems.notFound(`no resource ${resourceId}`);
    return resource;
  }
}
