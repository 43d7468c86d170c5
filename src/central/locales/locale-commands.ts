import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { LocaleView } from '../../../projections/locales.projection.js';
import { localeDecider } from '../../domain/locale/locale.decider.js';
import { streams } from '../../domain/shared/stream-names.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';

const VIEWS = ['locales'];

/** A tenant's texts for one language, whole (PUT, or a patch merged into them). */
export class SaveLocale extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly tag: string,
    readonly messages: Record<string, string>,
    readonly isDefault: boolean,
  ) {
    super();
  }
}

export class DeleteLocale extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly tag: string,
  ) {
    super();
  }
}

/**
 * A tenant has one default language: marking one as the default takes the mark from the others
 * (each on its own stream, right after; pages read the most recently marked one meanwhile).
 */
@CommandHandler(SaveLocale)
export class SaveLocaleHandler implements ICommandHandler<SaveLocale, void> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  async execute(c: SaveLocale): Promise<void> {
    const { tenantId } = c.by;
    await this.path.run(streams.locale(tenantId, c.tag), localeDecider, { kind: 'SetLocaleMessages', tenantId, tag: c.tag, messages: c.messages, isDefault: c.isDefault }, c.by, VIEWS);
    if (!c.isDefault) return;
    const others = (await this.reads.find<LocaleView>('locales', { tenantId })).filter((l) => l.isDefault && l.tag !== c.tag);
    for (const other of others) {
      const by = { tenantId, actor: c.by.actor, ...(c.by.origin ? { origin: c.by.origin } : {}) };
      await this.path.run(streams.locale(tenantId, other.tag), localeDecider, { kind: 'SetLocaleMessages', tenantId, tag: other.tag, messages: other.messages, isDefault: false }, by, VIEWS);
    }
  }
}

@CommandHandler(DeleteLocale)
export class DeleteLocaleHandler implements ICommandHandler<DeleteLocale, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: DeleteLocale): Promise<void> {
    await this.path.run(streams.locale(c.by.tenantId, c.tag), localeDecider, { kind: 'DeleteLocaleMessages' }, c.by, VIEWS);
  }
}
