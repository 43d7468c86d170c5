import type { Projection } from './projection.js';

/** The tenant's permissions, keyed `<tenant>/<permission id>`, found by resource. */
export interface PermissionView {
  tenantId: string;
  permissionId: string;
  resource: string;
  description?: string;
  createdAt: string;
  updatedAt: string;
  /** The revision of the permission's stream this document shows: its ETag in the admin API. */
  revision: number;
}

export const permissionKey = (tenantId: string, permissionId: string) => `${tenantId}/${permissionId}`;

export const permissionsProjection: Projection<PermissionView> = {
  view: 'permissions',
  version: 1,
  eventTypes: ['PermissionCreated', 'PermissionUpdated', 'PermissionDeleted'],
  indexes: [{ fields: ['tenantId', 'resource'] }],
  documentId: (e) => permissionKey(e.data.tenantId, e.data.permissionId),
  readsDocument: (e) => e.type === 'PermissionUpdated',
  apply(doc, e) {
    if (e.type === 'PermissionDeleted') return null;
    const { tenantId, permissionId, resource, description } = e.data;
    const at = e.metadata.occurredAt;
    const base = { tenantId, permissionId, resource, createdAt: doc?.createdAt ?? at, updatedAt: at, revision: e.revision };
    return description !== undefined ? Object.assign(base, { description }) : base;
  },
};
