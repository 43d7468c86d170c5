import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { RoleView } from '../../../projections/roles.projection.js';
import { permissionDecider } from '../../domain/permission/permission.decider.js';
import type { PermissionDefinition } from '../../domain/permission/permission.events.js';
import { resourceDecider } from '../../domain/resource/resource.decider.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { streams } from '../../domain/shared/stream-names.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';

const VIEWS = ['permissions'];

export class CreatePermission extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly definition: PermissionDefinition,
  ) {
    super();
  }
}

export class UpdatePermission extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly definition: PermissionDefinition,
  ) {
    super();
  }
}

export class DeletePermission extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly permissionId: string,
  ) {
    super();
  }
}

/** The resource named must exist, as its own stream says. */
@CommandHandler(CreatePermission)
export class CreatePermissionHandler implements ICommandHandler<CreatePermission, void> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
  ) {}

  async execute(c: CreatePermission): Promise<void> {
    const { tenantId } = c.by;
    const resource = await this.aggregates.load(streams.resource(tenantId, c.definition.resource), resourceDecider);
    const command = { kind: 'CreatePermission' as const, tenantId, definition: c.definition, resourceExists: resource.state.definition !== undefined };
    await this.path.run(streams.permission(tenantId, c.definition.permissionId), permissionDecider, command, c.by, VIEWS);
  }
}

@CommandHandler(UpdatePermission)
export class UpdatePermissionHandler implements ICommandHandler<UpdatePermission, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: UpdatePermission): Promise<void> {
    await this.path.run(streams.permission(c.by.tenantId, c.definition.permissionId), permissionDecider, { kind: 'UpdatePermission', definition: c.definition }, c.by, VIEWS);
  }
}

/**
 * A permission that a role includes stays (409): the roles are changed first, so that taking a
 * right away is always a visible change of a role. A tenant's roles are few: all are read.
 */
@CommandHandler(DeletePermission)
export class DeletePermissionHandler implements ICommandHandler<DeletePermission, void> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  async execute(c: DeletePermission): Promise<void> {
    const roles = await this.reads.find<RoleView>('roles', { tenantId: c.by.tenantId });
    const using = roles.filter((r) => r.permissions.includes(c.permissionId)).map((r) => r.roleId);
    if (using.length) throw new DomainError('in_use', `the permission ${c.permissionId} is in the role(s) ${using.join(', ')}: remove it from them first`);
    await this.path.run(streams.permission(c.by.tenantId, c.permissionId), permissionDecider, { kind: 'DeletePermission' }, c.by, VIEWS);
  }
}
