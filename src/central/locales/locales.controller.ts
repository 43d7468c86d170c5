import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Put, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { localeKey, type LocaleView } from '../../../projections/locales.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { ifMatchRevision } from '../http/etag.js';
import { commandOrigin } from '../http/item-origin.js';
import { type ItemKind, TenantItems } from '../http/tenant-items.js';
import { adminValidation } from '../http/validation.js';
import { DeleteLocale, SaveLocale } from './locale-commands.js';
import { LocaleDto, localeRepresentation, localeTagOf, messagesOf } from './locale.dto.js';

const LOCALES: ItemKind<LocaleView> = { view: 'locales', path: 'locales', noun: 'locale', key: localeKey, idOf: (x) => x.tag, render: localeRepresentation, readOnly: ['tag'] };

/**
 * `{issuer}/configuration/locales/{tag}`: the tenant's own texts of the edge pages for one
 * language, overriding the built-in catalogue key by key (a language without a built-in
 * catalogue falls back to English for the keys it leaves out).
 */
@Controller(':tenant/configuration/locales')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class LocalesController {
  private readonly items: TenantItems<LocaleView>;

  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(Directory) directory: Directory,
  ) {
    this.items = new TenantItems(reads, directory, LOCALES);
  }

  @Get()
  @RequireScope('central:read')
  list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    return this.items.page(tenantId, req.query);
  }

  @Get(':tag')
  @RequireScope('central:read')
  get(@Param('tenant') tenantId: string, @Param('tag') tag: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.items.shown(reply, tenantId, localeTagOf(tag));
  }

  /** Creates (201) or replaces (200) the language's texts. */
  @Put(':tag')
  @RequireScope('central:write')
  async put(@Param('tenant') tenantId: string, @Param('tag') tag: string, @Body() dto: LocaleDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const id = localeTagOf(tag);
    const expectedRevision = ifMatchRevision(req);
    const existed = (await this.reads.get<LocaleView>('locales', localeKey(tenantId, id))) !== null;
    await this.commands.execute(new SaveLocale(commandOrigin(tenantId, p, req, expectedRevision), id, messagesOf(dto), dto.default === true));
    return existed ? this.items.shown(reply, tenantId, id) : this.items.created(reply, tenantId, id);
  }

  /** RFC 7396 JSON Merge Patch of `messages` (a key set to null goes back to the built-in text) and `default`. */
  @Patch(':tag')
  @RequireScope('central:write')
  async patch(@Param('tenant') tenantId: string, @Param('tag') tag: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const id = localeTagOf(tag);
    const expectedRevision = ifMatchRevision(req);
    const current = await this.items.found(tenantId, id);
    const dto = this.items.patched(current, req.body, LocaleDto, {});
    await this.commands.execute(new SaveLocale(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), id, messagesOf(dto), dto.default === true));
    return this.items.shown(reply, tenantId, id);
  }

  @Delete(':tag')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Param('tag') tag: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const id = localeTagOf(tag);
    const expectedRevision = ifMatchRevision(req);
    await this.items.found(tenantId, id);
    await this.commands.execute(new DeleteLocale(commandOrigin(tenantId, p, req, expectedRevision), id));
  }
}
