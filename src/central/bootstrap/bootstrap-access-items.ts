import type { CommandBus } from '@nestjs/cqrs';
import type { PermissionView } from '../../../projections/permissions.projection.js';
import { permissionKey } from '../../../projections/permissions.projection.js';
import { type ResourceView, resourceKey } from '../../../projections/resources.projection.js';
import { type RoleView, roleKey } from '../../../projections/roles.projection.js';
import { type UserView, userKey } from '../../../projections/users.projection.js';
import type { PermissionDefinition } from '../../domain/permission/permission.events.js';
import type { ResourceDefinition } from '../../domain/resource/resource.events.js';
import type { RoleDefinition } from '../../domain/role/role.events.js';
import type { ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import type { CommandOrigin } from '../command-path.js';
import { type CommandResult, unappliedFields } from '../commands/create-tenant.command.js';
import { CreatePermission } from '../permissions/permission-commands.js';
import { CreateResource } from '../resources/resource-commands.js';
import { AssignRole, SaveRole } from '../roles/role-commands.js';

/**
 * The bootstrap file's resources, permissions, roles and role assignments, applied as the file
 * applies everything: what exists is left as it is, and the fields that differ are named.
 */
export class BootstrapAccessItems {
  constructor(
    private readonly commands: CommandBus,
    private readonly reads: ReadStore,
    private readonly by: CommandOrigin,
  ) {}

  async resource(d: ResourceDefinition): Promise<CommandResult> {
    const stored = await this.reads.get<ResourceView>('resources', resourceKey(this.by.tenantId, d.resourceId));
    if (stored) return { created: false, unapplied: unappliedFields(d, { resourceId: stored.resourceId, identifier: stored.identifier, name: stored.name, scopes: stored.scopes, upstreamUrl: stored.upstreamUrl, introspectionClients: stored.introspectionClients, routes: stored.routes, identityHeader: stored.identityHeader, forwardToken: stored.forwardToken }) };
    await this.commands.execute(new CreateResource(this.by, d));
    return { created: true };
  }

  async permission(d: PermissionDefinition): Promise<CommandResult> {
    const stored = await this.reads.get<PermissionView>('permissions', permissionKey(this.by.tenantId, d.permissionId));
    if (stored) return { created: false, unapplied: unappliedFields(d, { permissionId: stored.permissionId, resource: stored.resource, description: stored.description }) };
    await this.commands.execute(new CreatePermission(this.by, d));
    return { created: true };
  }

  async role(d: RoleDefinition): Promise<CommandResult> {
    const stored = await this.reads.get<RoleView>('roles', roleKey(this.by.tenantId, d.roleId));
    if (stored) return { created: false, unapplied: unappliedFields(d, { roleId: stored.roleId, name: stored.name, permissions: stored.permissions }) };
    await this.commands.execute(new SaveRole(this.by, d, false));
    return { created: true };
  }

  /**
   * Gives a user the file's roles when the file has just created them. A user who existed
   * before keeps the roles an admin left them (a role taken away does not come back at the
   * next start); the roles they lack are named.
   */
  async userRoles(userId: string, roles: readonly string[], justCreated: boolean): Promise<CommandResult> {
    if (justCreated) {
      for (const roleId of roles) await this.commands.execute(new AssignRole(this.by, { kind: 'user', userId }, roleId, true));
      return { created: false };
    }
    const user = await this.reads.get<UserView>('users', userKey(this.by.tenantId, userId));
    const missing = roles.filter((r) => !(user?.roles ?? []).includes(r));
    return { created: false, unapplied: missing.length ? [`roles (${missing.join(', ')})`] : [] };
  }
}
