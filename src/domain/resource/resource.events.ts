import type { DomainEvent } from '../shared/decider.js';
import type { ResourceRoute } from './resource-routes.js';

/** An API (resource server) of the tenant as the admin defines it; `identifier` is the `aud` of tokens issued for it. */
export interface ResourceDefinition {
  resourceId: string;
  identifier: string;
  name?: string;
  scopes: string[];
  /** Where the edge forwards the resource's traffic. */
  upstreamUrl?: string;
  /** The edge's proxy: which requests it forwards and what each needs (none: it forwards nothing). */
  routes?: ResourceRoute[];
  /** The header that carries the caller's identity (a signed JWT) to the upstream; `x-identity` when absent. */
  identityHeader?: string;
  /** Whether the upstream also gets the caller's own access token (in `Authorization`). */
  forwardToken?: boolean;
  /** Introspection by audience: the clients (the resource server's) told about tokens for this resource (RFC 7662 §4). */
  introspectionClients?: string[];
}

/** The identifier is claimed for this resource id, for good (rule 5): no other resource ever takes it. */
export type ResourceIdentifierReserved = DomainEvent<'ResourceIdentifierReserved', { tenantId: string; identifier: string; resourceId: string }>;
export type ResourceCreated = DomainEvent<'ResourceCreated', { tenantId: string } & ResourceDefinition>;
/** The whole definition after an admin's change (the identifier never changes). */
export type ResourceUpdated = DomainEvent<'ResourceUpdated', { tenantId: string } & ResourceDefinition>;
export type ResourceDeleted = DomainEvent<'ResourceDeleted', { tenantId: string; resourceId: string }>;

export type ResourceEvent = ResourceIdentifierReserved | ResourceCreated | ResourceUpdated | ResourceDeleted;
