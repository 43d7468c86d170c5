import type { DomainEvent } from '../shared/decider.js';

/** A named right (`invoices:approve`) on one resource; on the built-in `central`, an admin scope. */
export interface PermissionDefinition {
  permissionId: string;
  resource: string;
  description?: string;
}

export type PermissionCreated = DomainEvent<'PermissionCreated', { tenantId: string } & PermissionDefinition>;
/** The whole definition after an admin's change (the resource never changes). */
export type PermissionUpdated = DomainEvent<'PermissionUpdated', { tenantId: string } & PermissionDefinition>;
export type PermissionDeleted = DomainEvent<'PermissionDeleted', { tenantId: string; permissionId: string; resource: string }>;

export type PermissionEvent = PermissionCreated | PermissionUpdated | PermissionDeleted;
