import { Inject, Injectable } from '@nestjs/common';
import { roleDecider } from '../../domain/role/role.decider.js';
import { streams } from '../../domain/shared/stream-names.js';
import { userDecider } from '../../domain/user/user.decider.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { TenantScopes } from '../tenant-scopes.js';

/**
 * The one rule of the restricted scopes (the admin scopes, and those a tenant's admins
 * restricted): a user's grant carries one only while one of the user's roles includes the
 * permission of that name (for the admin scopes, on the built-in resource `central`, the only
 * one whose permissions bear those names). Roles and the user's assignments are read from their
 * streams, not from views: a view that lags must not grant a role just taken away.
 */
@Injectable()
export class RoleScopes {
  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(TenantScopes) private readonly scopes: TenantScopes,
  ) {}

  /** `scopes` less the restricted ones that `roles` (a user's role ids) do not grant. */
  async forRoles(tenantId: string, roles: readonly string[], scopes: readonly string[]): Promise<string[]> {
    const restricted = new Set(await this.scopes.restricted(tenantId, scopes));
    if (restricted.size === 0) return [...scopes];
    const held = new Set<string>();
    for (const roleId of roles) {
      const role = await this.aggregates.load(streams.role(tenantId, roleId), roleDecider);
      for (const p of role.state.definition?.permissions ?? []) held.add(p);
    }
    return scopes.filter((s) => !restricted.has(s) || held.has(s));
  }

  /** The same for a user found by id; a user deleted or unknown holds no role. */
  async forUser(tenantId: string, userId: string, scopes: readonly string[]): Promise<string[]> {
    if ((await this.scopes.restricted(tenantId, scopes)).length === 0) return [...scopes];
    const user = await this.aggregates.load(streams.user(tenantId, userId), userDecider);
    return this.forRoles(tenantId, user.state.deleted ? [] : (user.state.roles ?? []), scopes);
  }
}
