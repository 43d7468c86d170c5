import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { scopeKey, type ScopeView } from '../../../projections/scopes.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { ifMatchRevision } from '../http/etag.js';
import { commandOrigin } from '../http/item-origin.js';
import { type ItemKind, TenantItems } from '../http/tenant-items.js';
import { adminValidation } from '../http/validation.js';
import { DeleteScope, SaveScope } from './scope-commands.js';
import { scopeDefinitionOf, ScopeDto, scopeRepresentation } from './scope.dto.js';

const SCOPES: ItemKind<ScopeView> = { view: 'scopes', path: 'scopes', noun: 'scope', key: scopeKey, idOf: (x) => x.scopeId, render: scopeRepresentation, readOnly: ['built_in'] };

/**
 * `{issuer}/configuration/scopes`: the tenant's scopes, what each releases of the user at
 * userinfo, and whether a user's grant carries it only through a role. Every tenant has the
 * built-in `openid`, `profile`, `email` and `offline_access`.
 */
@Controller(':tenant/configuration/scopes')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class ScopesController {
  private readonly items: TenantItems<ScopeView>;

  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) reads: ReadStore,
    @Inject(Directory) directory: Directory,
  ) {
    this.items = new TenantItems(reads, directory, SCOPES);
  }

  @Get()
  @RequireScope('central:read')
  list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    return this.items.page(tenantId, req.query);
  }

  @Post()
  @RequireScope('central:write')
  async create(@Param('tenant') tenantId: string, @Body() dto: ScopeDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    await this.commands.execute(new SaveScope(commandOrigin(tenantId, p, req), scopeDefinitionOf(dto), true));
    return this.items.created(reply, tenantId, dto.id);
  }

  @Get(':scopeId')
  @RequireScope('central:read')
  get(@Param('tenant') tenantId: string, @Param('scopeId') scopeId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.items.shown(reply, tenantId, scopeId);
  }

  /** RFC 7396 JSON Merge Patch: description, restricted, claims; `id` cannot change. */
  @Patch(':scopeId')
  @RequireScope('central:write')
  async patch(@Param('tenant') tenantId: string, @Param('scopeId') scopeId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const expected = ifMatchRevision(req);
    const current = await this.items.found(tenantId, scopeId);
    const dto = this.items.patched(current, req.body, ScopeDto, { id: scopeId });
    await this.commands.execute(new SaveScope(commandOrigin(tenantId, p, req, expected ?? current.revision), scopeDefinitionOf(dto), false));
    return this.items.shown(reply, tenantId, scopeId);
  }

  /** Built-in scopes cannot be deleted (400); a client registered for a deleted scope keeps the name, which then releases nothing. */
  @Delete(':scopeId')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Param('scopeId') scopeId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expected = ifMatchRevision(req);
    await this.items.found(tenantId, scopeId);
    await this.commands.execute(new DeleteScope(commandOrigin(tenantId, p, req, expected), scopeId));
  }
}
