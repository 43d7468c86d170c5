import type { Projection } from './projection.js';

/** The tenant's roles, keyed `<tenant>/<role id>`, with how many users hold each. */
export interface RoleView {
  tenantId: string;
  roleId: string;
  name?: string;
  permissions: string[];
  /** Users and clients holding the role (assigned less unassigned, as the users' and clients' streams record). */
  assignments: number;
  createdAt: string;
  updatedAt: string;
  /** The revision of the role's stream this document shows: its ETag in the admin API. */
  revision: number;
}

export const roleKey = (tenantId: string, roleId: string) => `${tenantId}/${roleId}`;

export const rolesProjection: Projection<RoleView> = {
  view: 'roles',
  // 2: clients hold roles too.
  version: 2,
  eventTypes: ['RoleCreated', 'RoleUpdated', 'RoleDeleted', 'RoleAssigned', 'RoleUnassigned', 'ClientRoleAssigned', 'ClientRoleUnassigned'],
  indexes: [{ fields: ['tenantId'] }],
  documentId: (e) => roleKey(e.data.tenantId, e.data.roleId),
  readsDocument: (e) => e.type !== 'RoleCreated',
  apply(doc, e) {
    switch (e.type) {
      case 'RoleDeleted':
        return null;
      // Assignments are on the users' and clients' streams: they change the count, not the role's revision.
      case 'RoleAssigned':
      case 'ClientRoleAssigned':
        return doc && { ...doc, assignments: doc.assignments + 1 };
      case 'RoleUnassigned':
      case 'ClientRoleUnassigned':
        return doc && { ...doc, assignments: Math.max(0, doc.assignments - 1) };
      default: {
        const { tenantId, roleId, name, permissions } = e.data;
        const at = e.metadata.occurredAt;
        const base = { tenantId, roleId, permissions, assignments: doc?.assignments ?? 0, createdAt: doc?.createdAt ?? at, updatedAt: at, revision: e.revision };
        return name !== undefined ? Object.assign(base, { name }) : base;
      }
    }
  },
};
