import { Controller, Inject, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { ChallengesView } from '../../../projections/challenges.projection.js';
import { CONFIG, type Config } from '../../config.js';
import { emailCodesAvailable } from '../../edge/challenges/mail-settings.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { AdminGuard } from '../auth/admin.guard.js';
import { TenantSingletonRoutes } from '../http/tenant-singleton-routes.js';
import { DeleteChallenges, SaveChallenges } from './challenges-commands.js';
import { challengesDefinitionOf, ChallengesDto, challengesRepresentation } from './challenges.dto.js';

/**
 * `{issuer}/configuration/challenges`: the tenant's second factors (`totp`, `email_otp`, `webauthn`), each
 * `required`, `optional` or `off`, and per client the policies that replace the tenant's.
 * Deleting it asks no second factor any more (enrolled factors stay with their users); a merge
 * patch's `null` removes a factor or a client's override.
 */
@Controller(':tenant/configuration/challenges')
@UseGuards(AdminGuard)
export class ChallengesController extends TenantSingletonRoutes<ChallengesView, ChallengesDto> {
  constructor(@Inject(CommandBus) commands: CommandBus, @Inject(READ_STORE) reads: ReadStore, @Inject(CONFIG) config: Config) {
    super(commands, reads, {
      view: 'challenges',
      missing: 'the tenant has no second factors',
      dto: ChallengesDto,
      representation: challengesRepresentation,
      save: (by, dto) => new SaveChallenges(by, challengesDefinitionOf(dto, emailCodesAvailable(config.mail))),
      remove: (by) => new DeleteChallenges(by),
    });
  }
}
