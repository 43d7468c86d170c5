import { Delete, Get, HttpCode, Param, Patch, Post, Req, Res } from '@nestjs/common';
import type { Command, CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import type { Directory } from '../../shared/directory.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { Principal, RequireScope } from '../auth/admin.guard.js';
import type { CommandOrigin } from '../command-path.js';
import { ifMatchRevision } from './etag.js';
import { commandOrigin } from './item-origin.js';
import { type ItemFilter, type ItemKind, TenantItems } from './tenant-items.js';
import { validated } from './validation.js';

/** What the routes of one kind of item need besides its reads: its input, its filter, its commands. */
export interface ItemRoutesKind<V extends { revision: number }, D extends object> extends ItemKind<V> {
  dto: new () => D;
  idOfDto: (dto: D) => string;
  /** The list's equality filter, if the kind has one. */
  filter?: ItemFilter;
  /** Fields besides `id` that a patch cannot change, with the item's values. */
  fixed?: (item: V) => Partial<Record<keyof D & string, unknown>>;
  /** The command that creates the item (`create`) or replaces it with the patched one. */
  save: (by: CommandOrigin, dto: D, create: boolean) => Command<void>;
  remove: (by: CommandOrigin, id: string) => Command<void>;
}

/**
 * The five routes every kind of tenant item has, under the subclass's
 * `{issuer}/configuration/{kind}` (guarded there): a page of items by id, create (201 with
 * Location and ETag), one item with its ETag, an RFC 7396 merge patch honouring `If-Match`
 * (412 when stale), and delete (204). The subclass only names its kind.
 */
export abstract class ItemRoutes<V extends { revision: number }, D extends object> {
  protected readonly items: TenantItems<V>;

  constructor(
    private readonly commands: CommandBus,
    reads: ReadStore,
    directory: Directory,
    private readonly kind: ItemRoutesKind<V, D>,
  ) {
    this.items = new TenantItems(reads, directory, kind);
  }

  @Get()
  @RequireScope('central:read')
  list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    return this.items.page(tenantId, req.query, this.kind.filter);
  }

  @Post()
  @RequireScope('central:write')
  async create(@Param('tenant') tenantId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const dto = validated(this.kind.dto, req.body);
    await this.commands.execute(this.kind.save(commandOrigin(tenantId, p, req), dto, true));
    return this.items.created(reply, tenantId, this.kind.idOfDto(dto));
  }

  @Get(':id')
  @RequireScope('central:read')
  get(@Param('tenant') tenantId: string, @Param('id') id: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.items.shown(reply, tenantId, id);
  }

  @Patch(':id')
  @RequireScope('central:write')
  async patch(@Param('tenant') tenantId: string, @Param('id') id: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const current = await this.items.found(tenantId, id);
    const fixed = { id, ...this.kind.fixed?.(current) } as Partial<Record<keyof D & string, unknown>>;
    const dto = this.items.patched(current, req.body, this.kind.dto, fixed);
    await this.commands.execute(this.kind.save(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), dto, false));
    return this.items.shown(reply, tenantId, id);
  }

  @Delete(':id')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Param('id') id: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.items.found(tenantId, id);
    await this.commands.execute(this.kind.remove(commandOrigin(tenantId, p, req, expectedRevision), id));
  }
}
