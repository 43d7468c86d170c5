import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Put, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChallengesView } from '../../../projections/challenges.projection.js';
import { CONFIG, type Config } from '../../config.js';
import { emailCodesAvailable } from '../../edge/challenges/mail-settings.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { ifMatchRevision, sendEtag } from '../http/etag.js';
import { commandOrigin } from '../http/item-origin.js';
import { mergePatch } from '../http/merge-patch.js';
import { problems } from '../http/problem.js';
import { adminValidation, validated } from '../http/validation.js';
import { DeleteChallenges, SaveChallenges } from './challenges-commands.js';
import { challengesDefinitionOf, ChallengesDto, challengesRepresentation } from './challenges.dto.js';

/**
 * `{issuer}/configuration/challenges`: the tenant's second factors (`totp`, `email_otp`), each
 * `required`, `optional` or `off`, and per client the policies that replace the tenant's.
 */
@Controller(':tenant/configuration/challenges')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class ChallengesController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Get()
  @RequireScope('central:read')
  async get(@Param('tenant') tenantId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.shown(reply, await this.found(tenantId));
  }

  /** Creates (201) or replaces (200) the policy. */
  @Put()
  @RequireScope('central:write')
  async put(@Param('tenant') tenantId: string, @Body() dto: ChallengesDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const existed = (await this.reads.get<ChallengesView>('challenges', tenantId)) !== null;
    await this.commands.execute(new SaveChallenges(commandOrigin(tenantId, p, req, expectedRevision), challengesDefinitionOf(dto, emailCodesAvailable(this.config.mail))));
    if (!existed) reply.status(201);
    return this.shown(reply, await this.found(tenantId));
  }

  /** RFC 7396 JSON Merge Patch of the representation (`null` removes a factor or a client's override). */
  @Patch()
  @RequireScope('central:write')
  async patch(@Param('tenant') tenantId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const current = await this.found(tenantId);
    const { created_at: _c, updated_at: _u, ...editable } = challengesRepresentation(current);
    const dto = validated(ChallengesDto, mergePatch(editable, req.body));
    await this.commands.execute(new SaveChallenges(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), challengesDefinitionOf(dto, emailCodesAvailable(this.config.mail))));
    return this.shown(reply, await this.found(tenantId));
  }

  /** No second factor is asked for any more (enrolled factors stay with their users). */
  @Delete()
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.found(tenantId);
    await this.commands.execute(new DeleteChallenges(commandOrigin(tenantId, p, req, expectedRevision)));
  }

  private async found(tenantId: string): Promise<ChallengesView> {
    const view = await this.reads.get<ChallengesView>('challenges', tenantId);
    if (!view) throw problems.notFound('the tenant has no second factors');
    return view;
  }

  private shown(reply: FastifyReply, view: ChallengesView): Record<string, unknown> {
    sendEtag(reply, view.revision);
    return challengesRepresentation(view);
  }
}
