import { Controller, Delete, Get, HttpCode, Inject, Param, Req, UseGuards, UsePipes } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { secondFactorDecider, type SecondFactorState } from '../../domain/second-factor/second-factor.decider.js';
import { streams } from '../../domain/shared/stream-names.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { Directory } from '../../shared/directory.js';
import { originOf } from '../../shared/request-origin.js';
import { actorOf, type AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';
import { problems } from '../http/problem.js';
import { adminValidation } from '../http/validation.js';

/** Removes every second factor of a user: the authenticator app, its recovery codes, the passkeys, a pending e-mail code. */
export class ResetSecondFactors extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly userId: string,
  ) {
    super();
  }
}

@CommandHandler(ResetSecondFactors)
export class ResetSecondFactorsHandler implements ICommandHandler<ResetSecondFactors, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: ResetSecondFactors): Promise<void> {
    // No view folds this stream: the sign-in reads it as the aggregate, so nothing to wait for.
    await this.path.run(streams.secondFactors(c.by.tenantId, c.userId), secondFactorDecider, { kind: 'ResetSecondFactors', tenantId: c.by.tenantId, userId: c.userId }, c.by, []);
  }
}

/** What a user has enrolled, without any secret: whether an app, how many recovery codes are left, and the passkeys' public parts. */
export function secondFactorsRepresentation(s: SecondFactorState): Record<string, unknown> {
  return {
    totp: s.sealedTotpSecret !== undefined,
    recovery_codes: s.recoveryCodeHashes.length,
    passkeys: s.passkeys.map((p) => ({ credential_id: p.credentialId, multi_device: p.multiDevice, transports: p.transports ?? [] })),
  };
}

/**
 * `{issuer}/configuration/users/{id}/second-factors`: which second factors a user has set up
 * (GET), and their removal by an administrator (DELETE), for a user who lost their device: at
 * the next sign-in the tenant's policy has them set up again. Read from the user's
 * second-factor stream, where the sign-in decides on them too.
 */
@Controller(':tenant/configuration/users/:userId/second-factors')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class SecondFactorsAdminController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  @Get()
  @RequireScope('central:read')
  async get(@Param('tenant') tenantId: string, @Param('userId') userId: string): Promise<unknown> {
    await this.found(tenantId, userId);
    const { state } = await this.aggregates.load(streams.secondFactors(tenantId, userId), secondFactorDecider);
    return secondFactorsRepresentation(state);
  }

  @Delete()
  @RequireScope('central:write')
  @HttpCode(204)
  async reset(@Param('tenant') tenantId: string, @Param('userId') userId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    await this.found(tenantId, userId);
    await this.commands.execute(new ResetSecondFactors({ tenantId, actor: actorOf(p), origin: originOf(req) }, userId));
  }

  private async found(tenantId: string, userId: string): Promise<void> {
    if (!(await this.directory.user(tenantId, userId))) throw problems.notFound(`no user ${userId}`);
  }
}
