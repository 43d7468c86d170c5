import { BUILT_IN_SCOPES } from '../src/domain/scope/built-in-scopes.js';
import type { ProjectedEvent, Projection } from './projection.js';

/** The tenant's scopes, keyed `<tenant>/<scope id>`: the built-in ones from the tenant's creation, and the admins' own. */
export interface ScopeView {
  tenantId: string;
  scopeId: string;
  description?: string;
  restricted: boolean;
  claims: string[];
  builtIn: boolean;
  createdAt: string;
  updatedAt: string;
  /**
   * The ETag in the admin API: one more than the revision of the scope's stream, so that a
   * built-in scope no admin has changed yet (no event on its stream) is 0.
   */
  revision: number;
}

export const scopeKey = (tenantId: string, scopeId: string) => `${tenantId}/${scopeId}`;

const isBuiltIn = (scopeId: string) => BUILT_IN_SCOPES.some((s) => s.scopeId === scopeId);

export const scopesProjection: Projection<ScopeView> = {
  view: 'scopes',
  version: 1,
  eventTypes: ['TenantCreated', 'ScopeCreated', 'ScopeUpdated', 'ScopeDeleted'],
  indexes: [],
  documentId(e: ProjectedEvent) {
    if (e.type === 'TenantCreated') return BUILT_IN_SCOPES.map((s) => scopeKey(e.data.tenantId, s.scopeId));
    return scopeKey(e.data.tenantId, e.data.scopeId);
  },
  readsDocument: (e) => e.type === 'ScopeUpdated',
  apply(doc, e, id) {
    const at = e.metadata.occurredAt;
    if (e.type === 'TenantCreated') {
      const s = BUILT_IN_SCOPES.find((b) => scopeKey(e.data.tenantId, b.scopeId) === id)!;
      return { tenantId: e.data.tenantId, ...s, claims: [...s.claims], builtIn: true, createdAt: at, updatedAt: at, revision: 0 };
    }
    if (e.type === 'ScopeDeleted') return null;
    const { tenantId, scopeId, description, restricted, claims } = e.data;
    const base: ScopeView = { tenantId, scopeId, restricted, claims, builtIn: isBuiltIn(scopeId), createdAt: doc?.createdAt ?? at, updatedAt: at, revision: e.revision + 1 };
    return description !== undefined ? Object.assign(base, { description }) : base;
  },
};
