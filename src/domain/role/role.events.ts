import type { DomainEvent } from '../shared/decider.js';

/** A named set of permissions (their ids), assigned to users. */
export interface RoleDefinition {
  roleId: string;
  name?: string;
  permissions: string[];
}

export type RoleCreated = DomainEvent<'RoleCreated', { tenantId: string } & RoleDefinition>;
/** The whole definition after an admin's change. */
export type RoleUpdated = DomainEvent<'RoleUpdated', { tenantId: string } & RoleDefinition>;
export type RoleDeleted = DomainEvent<'RoleDeleted', { tenantId: string; roleId: string }>;

export type RoleEvent = RoleCreated | RoleUpdated | RoleDeleted;
