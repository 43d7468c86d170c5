import { Inject, Injectable } from '@nestjs/common';
import { clientDecider } from '../../domain/client/client.decider.js';
import { permissionDecider } from '../../domain/permission/permission.decider.js';
import { roleDecider } from '../../domain/role/role.decider.js';
import { streams } from '../../domain/shared/stream-names.js';
import { userDecider } from '../../domain/user/user.decider.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';

/** A permission the caller holds, with the resource it is on. */
export interface HeldPermission {
  id: string;
  resource: string;
  /** The caller's roles that bring it. */
  roles: string[];
}

/** What a user (or a client, for its own tokens) holds: role ids, and the permissions of those roles (each once), sorted by id. */
export interface EffectiveAccess {
  roles: string[];
  permissions: HeldPermission[];
}

const NONE: EffectiveAccess = { roles: [], permissions: [] };

/**
 * A user's roles and the permissions they bring, read from the user's, the roles' and the
 * permissions' streams (as RoleScopes reads them): a role given or taken away through the
 * admin API counts from the very next request, and no lagging view can grant a right that was
 * taken away. A disabled or deleted user holds nothing.
 */
@Injectable()
export class EffectivePermissions {
  constructor(@Inject(AggregateStore) private readonly aggregates: AggregateStore) {}

  /** The caller's: a user's roles, or, for a client's own token (no user), the client's. */
  async forCaller(tenantId: string, caller: { userId?: string; clientId?: string }): Promise<EffectiveAccess> {
    if (caller.userId) return this.forUser(tenantId, caller.userId);
    return caller.clientId ? this.forClient(tenantId, caller.clientId) : NONE;
  }

  async forUser(tenantId: string, userId: string | undefined): Promise<EffectiveAccess> {
    if (!userId) return NONE;
    const user = (await this.aggregates.load(streams.user(tenantId, userId), userDecider)).state;
    if (!user.created || user.deleted || user.disabled) return NONE;
    return this.expand(tenantId, user.roles ?? []);
  }

  /** A client's roles for its own tokens; a deleted client holds nothing. */
  async forClient(tenantId: string, clientId: string): Promise<EffectiveAccess> {
    const client = (await this.aggregates.load(streams.client(tenantId, clientId), clientDecider)).state;
    return client.exists ? this.expand(tenantId, client.roles ?? []) : NONE;
  }

  private async expand(tenantId: string, held: readonly string[]): Promise<EffectiveAccess> {
    const roles = [...held].sort();
    const by = new Map<string, string[]>();
    for (const roleId of roles) {
      const role = await this.aggregates.load(streams.role(tenantId, roleId), roleDecider);
      for (const p of role.state.definition?.permissions ?? []) by.set(p, [...(by.get(p) ?? []), roleId]);
    }
    const permissions: HeldPermission[] = [];
    for (const id of [...by.keys()].sort()) {
      const p = await this.aggregates.load(streams.permission(tenantId, id), permissionDecider);
      if (p.state.definition) permissions.push({ id, resource: p.state.definition.resource, roles: by.get(id)! });
    }
    return { roles, permissions };
  }
}
