import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CONFIG, type Config } from '../../config.js';
import { challengesDecider } from '../../domain/challenge/challenges.decider.js';
import type { ChallengesDefinition } from '../../domain/challenge/challenges.events.js';
import { streams } from '../../domain/shared/stream-names.js';
import { emailCodesAvailable } from '../../edge/challenges/mail-settings.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';

const VIEWS = ['challenges'];

/** The tenant's whole second-factor policy (PUT, or a patch merged into it). */
export class SaveChallenges extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly definition: ChallengesDefinition,
  ) {
    super();
  }
}

export class DeleteChallenges extends Command<void> {
  constructor(readonly by: CommandOrigin) {
    super();
  }
}

@CommandHandler(SaveChallenges)
export class SaveChallengesHandler implements ICommandHandler<SaveChallenges, void> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async execute(c: SaveChallenges): Promise<void> {
    const command = { kind: 'SetChallenges' as const, tenantId: c.by.tenantId, definition: c.definition, emailAvailable: emailCodesAvailable(this.config.mail) };
    await this.path.run(streams.challenges(c.by.tenantId), challengesDecider, command, c.by, VIEWS);
  }
}

@CommandHandler(DeleteChallenges)
export class DeleteChallengesHandler implements ICommandHandler<DeleteChallenges, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: DeleteChallenges): Promise<void> {
    await this.path.run(streams.challenges(c.by.tenantId), challengesDecider, { kind: 'DeleteChallenges' }, c.by, VIEWS);
  }
}
