import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Put, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formKey, type FormView } from '../../../projections/forms.projection.js';
import type { FormName } from '../../domain/form/form.events.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { ifMatchRevision, sendEtag } from '../http/etag.js';
import { commandOrigin } from '../http/item-origin.js';
import { mergePatch } from '../http/merge-patch.js';
import { problems } from '../http/problem.js';
import { adminValidation, validated } from '../http/validation.js';
import { DeleteForm, SaveForm } from './form-commands.js';
import { formDefinitionOf, FormDto, formNameOf, formRepresentation } from './form.dto.js';

/**
 * `{issuer}/configuration/forms/{form}` (`sign-in`, `registration`): which fields the tenant's
 * page shows and requires, with their rules; the registration endpoint applies the same form.
 */
@Controller(':tenant/configuration/forms')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class FormsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  /** The tenant's own form; 404 while it has none (the default applies). */
  @Get(':form')
  @RequireScope('central:read')
  async get(@Param('tenant') tenantId: string, @Param('form') form: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.shown(reply, await this.found(tenantId, formNameOf(form)));
  }

  /** Creates (201) or replaces (200) the form. */
  @Put(':form')
  @RequireScope('central:write')
  async put(
    @Param('tenant') tenantId: string,
    @Param('form') form: string,
    @Body() dto: FormDto,
    @Principal() p: AdminPrincipal,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const name = formNameOf(form);
    const expectedRevision = ifMatchRevision(req);
    const existed = (await this.reads.get<FormView>('forms', formKey(tenantId, name))) !== null;
    await this.commands.execute(new SaveForm(commandOrigin(tenantId, p, req, expectedRevision), name, formDefinitionOf(name, dto)));
    if (!existed) reply.status(201);
    return this.shown(reply, await this.found(tenantId, name));
  }

  /** RFC 7396 JSON Merge Patch; `fields` is a list, so a patch replaces it whole. */
  @Patch(':form')
  @RequireScope('central:write')
  async patch(@Param('tenant') tenantId: string, @Param('form') form: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const name = formNameOf(form);
    const expectedRevision = ifMatchRevision(req);
    const current = await this.found(tenantId, name);
    const { created_at: _c, updated_at: _u, form: _f, ...editable } = formRepresentation(current);
    const dto = validated(FormDto, mergePatch(editable, req.body));
    await this.commands.execute(new SaveForm(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), name, formDefinitionOf(name, dto)));
    return this.shown(reply, await this.found(tenantId, name));
  }

  /** The default form applies again. */
  @Delete(':form')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Param('form') form: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const name = formNameOf(form);
    const expectedRevision = ifMatchRevision(req);
    await this.found(tenantId, name);
    await this.commands.execute(new DeleteForm(commandOrigin(tenantId, p, req, expectedRevision), name));
  }

  private async found(tenantId: string, form: FormName): Promise<FormView> {
    const view = await this.reads.get<FormView>('forms', formKey(tenantId, form));
    if (!view) throw problems.notFound(`the tenant has no ${form} form of its own`);
    return view;
  }

  private shown(reply: FastifyReply, form: FormView): Record<string, unknown> {
    sendEtag(reply, form.revision);
    return formRepresentation(form);
  }
}
