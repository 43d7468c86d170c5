import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { RoleView } from '../../../projections/roles.projection.js';
import { roleKey } from '../../../projections/roles.projection.js';
import { permissionDecider } from '../../domain/permission/permission.decider.js';
import { roleDecider } from '../../domain/role/role.decider.js';
import type { RoleDefinition } from '../../domain/role/role.events.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { streams } from '../../domain/shared/stream-names.js';
import { userDecider } from '../../domain/user/user.decider.js';
import { clientDecider } from '../../domain/client/client.decider.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';

const VIEWS = ['roles'];
/** An assignment shows on the user (its roles) and on the role (its count of holders). */
const ASSIGNMENT_VIEWS = ['users', 'roles'];
const CLIENT_ASSIGNMENT_VIEWS = ['clients', 'roles'];

/** Creates the role, or (`replace`) changes the role that exists. */
export class SaveRole extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly definition: RoleDefinition,
    readonly replace: boolean,
  ) {
    super();
  }
}

export class DeleteRole extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly roleId: string,
  ) {
    super();
  }
}

/** Who holds roles: users, and clients for their own tokens. */
export type RoleHolder = { kind: 'user'; userId: string } | { kind: 'client'; clientId: string };

export class AssignRole extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly holder: RoleHolder,
    readonly roleId: string,
    readonly assign: boolean,
  ) {
    super();
  }
}

/** Every permission of the role must exist, as their own streams say. */
@CommandHandler(SaveRole)
export class SaveRoleHandler implements ICommandHandler<SaveRole, void> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
  ) {}

  async execute(c: SaveRole): Promise<void> {
    const { tenantId } = c.by;
    const missingPermissions: string[] = [];
    for (const id of c.definition.permissions) {
      const permission = await this.aggregates.load(streams.permission(tenantId, id), permissionDecider);
      if (!permission.state.definition) missingPermissions.push(id);
    }
    const command = c.replace ? { kind: 'UpdateRole' as const, definition: c.definition, missingPermissions } : { kind: 'CreateRole' as const, tenantId, definition: c.definition, missingPermissions };
    await this.path.run(streams.role(tenantId, c.definition.roleId), roleDecider, command, c.by, VIEWS);
  }
}

/** A role that users or clients hold stays (409): it is taken from them first, each change on the holder's stream. */
@CommandHandler(DeleteRole)
export class DeleteRoleHandler implements ICommandHandler<DeleteRole, void> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  async execute(c: DeleteRole): Promise<void> {
    const role = await this.reads.get<RoleView>('roles', roleKey(c.by.tenantId, c.roleId));
    if (role && role.assignments > 0) throw new DomainError('in_use', `the role ${c.roleId} is held by ${role.assignments} user(s) or client(s): unassign it first`);
    await this.path.run(streams.role(c.by.tenantId, c.roleId), roleDecider, { kind: 'DeleteRole' }, c.by, VIEWS);
  }
}

/**
 * RoleAssigned or RoleUnassigned on the user's stream (ClientRoleAssigned or ClientRoleUnassigned
 * on the client's); a role is assigned only while it exists.
 */
@CommandHandler(AssignRole)
export class AssignRoleHandler implements ICommandHandler<AssignRole, void> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
  ) {}

  async execute(c: AssignRole): Promise<void> {
    const { tenantId } = c.by;
    const roleExists = c.assign && (await this.aggregates.load(streams.role(tenantId, c.roleId), roleDecider)).state.definition !== undefined;
    if (c.holder.kind === 'user') {
      const command = c.assign ? { kind: 'AssignRole' as const, roleId: c.roleId, roleExists } : { kind: 'UnassignRole' as const, roleId: c.roleId };
      await this.path.run(streams.user(tenantId, c.holder.userId), userDecider, command, c.by, ASSIGNMENT_VIEWS);
      return;
    }
    const command = c.assign ? { kind: 'AssignClientRole' as const, roleId: c.roleId, roleExists } : { kind: 'UnassignClientRole' as const, roleId: c.roleId };
    await this.path.run(streams.client(tenantId, c.holder.clientId), clientDecider, command, c.by, CLIENT_ASSIGNMENT_VIEWS);
  }
}
