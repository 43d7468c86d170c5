import { Inject, Injectable } from '@nestjs/common';
import { scopeKey, type ScopeView } from '../../projections/scopes.projection.js';
import { builtInScope } from '../domain/scope/built-in-scopes.js';
import type { ScopeDefinition } from '../domain/scope/scope.events.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';
import { restrictedForUsers } from './scopes.js';

/**
 * A tenant's scopes as its admins defined them (the `scopes` view, kept in memory by the read
 * store's cache): which claims each releases, and which a user's grant carries only through a
 * role. A built-in scope not found in the view (its tenant not yet projected) reads as shipped.
 */
@Injectable()
export class TenantScopes {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  private async definition(tenantId: string, scope: string): Promise<ScopeDefinition | ScopeView | undefined> {
    return (await this.reads.get<ScopeView>('scopes', scopeKey(tenantId, scope))) ?? builtInScope(scope);
  }

  /** The claims `scopes` release, `sub` always among them. */
  async claims(tenantId: string, scopes: readonly string[]): Promise<Set<string>> {
    const claims = new Set(['sub']);
    for (const s of scopes) for (const c of (await this.definition(tenantId, s))?.claims ?? []) claims.add(c);
    return claims;
  }

  /** Those of `scopes` that a user's grant carries only through a role: the admin and feed scopes, and the tenant's restricted ones. */
  async restricted(tenantId: string, scopes: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const s of scopes) if (restrictedForUsers(s) || (await this.definition(tenantId, s))?.restricted) out.push(s);
    return out;
  }
}
