import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { formDecider } from '../../domain/form/form.decider.js';
import type { FormDefinition, FormName } from '../../domain/form/form.events.js';
import { streams } from '../../domain/shared/stream-names.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';

const VIEWS = ['forms'];

export class SaveForm extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly form: FormName,
    readonly definition: FormDefinition,
  ) {
    super();
  }
}

export class DeleteForm extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly form: FormName,
  ) {
    super();
  }
}

@CommandHandler(SaveForm)
export class SaveFormHandler implements ICommandHandler<SaveForm, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: SaveForm): Promise<void> {
    await this.path.run(streams.form(c.by.tenantId, c.form), formDecider, { kind: 'SetForm', tenantId: c.by.tenantId, form: c.form, definition: c.definition }, c.by, VIEWS);
  }
}

@CommandHandler(DeleteForm)
export class DeleteFormHandler implements ICommandHandler<DeleteForm, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: DeleteForm): Promise<void> {
    await this.path.run(streams.form(c.by.tenantId, c.form), formDecider, { kind: 'DeleteForm' }, c.by, VIEWS);
  }
}
