import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { scopeDecider } from '../../domain/scope/scope.decider.js';
import type { ScopeDefinition } from '../../domain/scope/scope.events.js';
import { streams } from '../../domain/shared/stream-names.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';

const VIEWS = ['scopes'];

/** `etag`: the scope's ETag an `If-Match` named (one more than its stream's revision; see ScopeView). */
const onRevision = (by: CommandOrigin): CommandOrigin => (by.expectedRevision !== undefined ? { ...by, expectedRevision: by.expectedRevision - 1 } : by);

export class SaveScope extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly definition: ScopeDefinition,
    readonly create: boolean,
  ) {
    super();
  }
}

export class DeleteScope extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly scopeId: string,
  ) {
    super();
  }
}

@CommandHandler(SaveScope)
export class SaveScopeHandler implements ICommandHandler<SaveScope, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: SaveScope): Promise<void> {
    const { tenantId } = c.by;
    const command = { kind: c.create ? ('CreateScope' as const) : ('UpdateScope' as const), tenantId, definition: c.definition };
    await this.path.run(streams.scope(tenantId, c.definition.scopeId), scopeDecider, command, onRevision(c.by), VIEWS);
  }
}

@CommandHandler(DeleteScope)
export class DeleteScopeHandler implements ICommandHandler<DeleteScope, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: DeleteScope): Promise<void> {
    await this.path.run(streams.scope(c.by.tenantId, c.scopeId), scopeDecider, { kind: 'DeleteScope', scopeId: c.scopeId }, onRevision(c.by), VIEWS);
  }
}
