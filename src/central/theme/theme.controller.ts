import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Put, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ThemeView } from '../../../projections/themes.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { ifMatchRevision, sendEtag } from '../http/etag.js';
import { commandOrigin } from '../http/item-origin.js';
import { mergePatch } from '../http/merge-patch.js';
import { problems } from '../http/problem.js';
import { adminValidation, validated } from '../http/validation.js';
import { DeleteTheme, SaveTheme } from './theme-commands.js';
import { themeDefinitionOf, ThemeDto, themeRepresentation } from './theme.dto.js';

/**
 * `{issuer}/configuration/theme`: the tenant's one theme of the edge pages (logo, colours,
 * stylesheet), served to browsers at `{issuer}/assets/theme.css`.
 */
@Controller(':tenant/configuration/theme')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class ThemeController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  @Get()
  @RequireScope('central:read')
  async get(@Param('tenant') tenantId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.shown(reply, await this.found(tenantId));
  }

  /** Creates (201) or replaces (200) the theme. */
  @Put()
  @RequireScope('central:write')
  async put(@Param('tenant') tenantId: string, @Body() dto: ThemeDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const existed = (await this.reads.get<ThemeView>('themes', tenantId)) !== null;
    await this.commands.execute(new SaveTheme(commandOrigin(tenantId, p, req, expectedRevision), themeDefinitionOf(dto)));
    if (!existed) reply.status(201);
    return this.shown(reply, await this.found(tenantId));
  }

  /** RFC 7396 JSON Merge Patch of the theme's representation. */
  @Patch()
  @RequireScope('central:write')
  async patch(@Param('tenant') tenantId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const current = await this.found(tenantId);
    const { created_at: _c, updated_at: _u, ...editable } = themeRepresentation(current);
    const dto = validated(ThemeDto, mergePatch(editable, req.body));
    await this.commands.execute(new SaveTheme(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), themeDefinitionOf(dto)));
    return this.shown(reply, await this.found(tenantId));
  }

  /** The pages go back to the built-in look. */
  @Delete()
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.found(tenantId);
    await this.commands.execute(new DeleteTheme(commandOrigin(tenantId, p, req, expectedRevision)));
  }

  private async found(tenantId: string): Promise<ThemeView> {
    const theme = await this.reads.get<ThemeView>('themes', tenantId);
    if (!theme) throw problems.notFound('the tenant has no theme');
    return theme;
  }

  private shown(reply: FastifyReply, theme: ThemeView): Record<string, unknown> {
    sendEtag(reply, theme.revision);
    return themeRepresentation(theme);
  }
}
