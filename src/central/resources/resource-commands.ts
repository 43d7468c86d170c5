import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { PermissionView } from '../../../projections/permissions.projection.js';
import { resourceDecider, validateResource } from '../../domain/resource/resource.decider.js';
import type { ResourceDefinition } from '../../domain/resource/resource.events.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { streams } from '../../domain/shared/stream-names.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';

const VIEWS = ['resources'];

export class CreateResource extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly definition: ResourceDefinition,
  ) {
    super();
  }
}

export class UpdateResource extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly definition: ResourceDefinition,
  ) {
    super();
  }
}

export class DeleteResource extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly resourceId: string,
  ) {
    super();
  }
}

/** Claims the identifier on its reservation stream first (rule 5), then creates the resource. */
@CommandHandler(CreateResource)
export class CreateResourceHandler implements ICommandHandler<CreateResource, void> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
  ) {}

  async execute(c: CreateResource): Promise<void> {
    const { tenantId } = c.by;
    const d = c.definition;
    validateResource(d);
    // A taken id is refused before the identifier is claimed, so that a refused request claims nothing.
    if ((await this.aggregates.load(streams.resource(tenantId, d.resourceId), resourceDecider)).state.definition) throw new DomainError('already_exists', `a resource ${d.resourceId} exists`);
    const reservation = { kind: 'ReserveIdentifier' as const, tenantId, identifier: d.identifier, resourceId: d.resourceId };
    await this.path.run(streams.resourceIdentifier(tenantId, d.identifier), resourceDecider, reservation, { tenantId, actor: c.by.actor, ...(c.by.origin ? { origin: c.by.origin } : {}) }, []);
    await this.path.run(streams.resource(tenantId, d.resourceId), resourceDecider, { kind: 'CreateResource', tenantId, definition: d }, c.by, VIEWS);
  }
}

@CommandHandler(UpdateResource)
export class UpdateResourceHandler implements ICommandHandler<UpdateResource, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: UpdateResource): Promise<void> {
    await this.path.run(streams.resource(c.by.tenantId, c.definition.resourceId), resourceDecider, { kind: 'UpdateResource', definition: c.definition }, c.by, VIEWS);
  }
}

/**
 * A resource with permissions on it stays (409): its permissions go first. The permissions
 * view is read after every permission write has reached it (CommandPath waits), so only a
 * permission created at the same instant could slip past.
 */
@CommandHandler(DeleteResource)
export class DeleteResourceHandler implements ICommandHandler<DeleteResource, void> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  async execute(c: DeleteResource): Promise<void> {
    const used = await this.reads.find<PermissionView>('permissions', { tenantId: c.by.tenantId, resource: c.resourceId }, { limit: 1 });
    if (used.length) throw new DomainError('in_use', `the resource ${c.resourceId} has permissions (${used[0].permissionId}, ...): delete them first`);
    await this.path.run(streams.resource(c.by.tenantId, c.resourceId), resourceDecider, { kind: 'DeleteResource' }, c.by, VIEWS);
  }
}
