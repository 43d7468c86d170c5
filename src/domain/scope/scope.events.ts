import type { DomainEvent } from '../shared/decider.js';

/**
 * A scope of the tenant as the admin defines it: what it is for, whether a user's grant may
 * carry it without a role that includes it, and which of the user's claims it releases at
 * userinfo.
 */
export interface ScopeDefinition {
  scopeId: string;
  description?: string;
  /** A user's grant carries a restricted scope only while one of the user's roles includes a permission of that name. */
  restricted: boolean;
  claims: string[];
}

export type ScopeCreated = DomainEvent<'ScopeCreated', { tenantId: string } & ScopeDefinition>;
/** The whole definition after an admin's change; the first change of a built-in scope is one too. */
export type ScopeUpdated = DomainEvent<'ScopeUpdated', { tenantId: string } & ScopeDefinition>;
export type ScopeDeleted = DomainEvent<'ScopeDeleted', { tenantId: string; scopeId: string }>;

export type ScopeEvent = ScopeCreated | ScopeUpdated | ScopeDeleted;
