import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { streams } from '../../domain/shared/stream-names.js';
import { themeDecider } from '../../domain/theme/theme.decider.js';
import type { ThemeDefinition } from '../../domain/theme/theme.events.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';

const VIEWS = ['themes'];

/** The tenant's whole theme (PUT, or a patch merged into it). */
export class SaveTheme extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly theme: ThemeDefinition,
  ) {
    super();
  }
}

export class DeleteTheme extends Command<void> {
  constructor(readonly by: CommandOrigin) {
    super();
  }
}

@CommandHandler(SaveTheme)
export class SaveThemeHandler implements ICommandHandler<SaveTheme, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: SaveTheme): Promise<void> {
    await this.path.run(streams.theme(c.by.tenantId), themeDecider, { kind: 'SetTheme', tenantId: c.by.tenantId, theme: c.theme }, c.by, VIEWS);
  }
}

@CommandHandler(DeleteTheme)
export class DeleteThemeHandler implements ICommandHandler<DeleteTheme, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: DeleteTheme): Promise<void> {
    await this.path.run(streams.theme(c.by.tenantId), themeDecider, { kind: 'DeleteTheme' }, c.by, VIEWS);
  }
}
