import { Delete, Get, HttpCode, Param, Patch, Put, Req, Res } from '@nestjs/common';
import type { Command, CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { Principal, RequireScope } from '../auth/admin.guard.js';
import type { CommandOrigin } from '../command-path.js';
import { ifMatchRevision, sendEtag } from './etag.js';
import { commandOrigin } from './item-origin.js';
import { mergePatch } from './merge-patch.js';
import { problems } from './problem.js';
import { validated } from './validation.js';

/** What the routes of a kind a tenant has at most one of need: its view, its input, its representation and its commands. */
export interface TenantSingletonKind<V extends { revision: number }, D extends object> {
  /** The view, keyed by tenant id. */
  view: string;
  /** What a 404 says when the tenant has none. */
  missing: string;
  dto: new () => D;
  representation: (view: V) => Record<string, unknown>;
  save: (by: CommandOrigin, dto: D) => Command<void>;
  remove: (by: CommandOrigin) => Command<void>;
}

/**
 * The four routes of a kind a tenant has one of (its theme, its second-factor policy), under the
 * subclass's `{issuer}/configuration/{kind}` (guarded there): read with its ETag, create (201) or
 * replace (200) with PUT, an RFC 7396 merge patch, and delete (204); writes honour `If-Match`
 * (412 when stale). The subclass only names its kind.
 */
export abstract class TenantSingletonRoutes<V extends { revision: number }, D extends object> {
  constructor(
    private readonly commands: CommandBus,
    private readonly reads: ReadStore,
    private readonly kind: TenantSingletonKind<V, D>,
  ) {}

  @Get()
  @RequireScope('central:read')
  async get(@Param('tenant') tenantId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.shown(reply, await this.found(tenantId));
  }

  @Put()
  @RequireScope('central:write')
  async put(@Param('tenant') tenantId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const dto = validated(this.kind.dto, req.body);
    const existed = (await this.reads.get<V>(this.kind.view, tenantId)) !== null;
    await this.commands.execute(this.kind.save(commandOrigin(tenantId, p, req, expectedRevision), dto));
    if (!existed) reply.status(201);
    return this.shown(reply, await this.found(tenantId));
  }

  @Patch()
  @RequireScope('central:write')
  async patch(@Param('tenant') tenantId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const current = await this.found(tenantId);
    const { created_at: _c, updated_at: _u, ...editable } = this.kind.representation(current);
    const dto = validated(this.kind.dto, mergePatch(editable, req.body));
    await this.commands.execute(this.kind.save(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), dto));
    return this.shown(reply, await this.found(tenantId));
  }

  @Delete()
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.found(tenantId);
    await this.commands.execute(this.kind.remove(commandOrigin(tenantId, p, req, expectedRevision)));
  }

  private async found(tenantId: string): Promise<V> {
    const view = await this.reads.get<V>(this.kind.view, tenantId);
    if (!view) throw problems.notFound(this.kind.missing);
    return view;
  }

  private shown(reply: FastifyReply, view: V): Record<string, unknown> {
    sendEtag(reply, view.revision);
    return this.kind.representation(view);
  }
}
