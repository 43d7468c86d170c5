import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import { routesFault } from './resource-routes.js';
import type { ResourceDefinition, ResourceEvent } from './resource.events.js';

/** Ids of the admin API's items: unreserved characters and `:`, as `invoices:approve`. */
export const ITEM_ID = /^[A-Za-z0-9._~:-]{1,128}$/;
/** The built-in resource of the admin scopes (central:read, ...): it has no stream and cannot be defined. */
export const CENTRAL_RESOURCE = 'central';
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

export type ResourceCommand =
  | { kind: 'ReserveIdentifier'; tenantId: string; identifier: string; resourceId: string }
  | { kind: 'CreateResource'; tenantId: string; definition: ResourceDefinition }
  | { kind: 'UpdateResource'; definition: ResourceDefinition }
  | { kind: 'DeleteResource' };

export interface ResourceState {
  /** On the identifier's reservation stream: the resource that holds it. */
  reservedFor?: string;
  tenantId?: string;
  definition?: ResourceDefinition;
}

function absoluteUri(value: string): boolean {
  try {
    return new URL(value).href.length > 0 && !/\s/.test(value);
  } catch {
    return false;
  }
}

export function validateResource(d: ResourceDefinition): void {
  const fail = (m: string): never => {
    throw new DomainError('invalid_value', `resource ${d.resourceId}: ${m}`);
  };
  if (!ITEM_ID.test(d.resourceId)) fail('id must be 1-128 unreserved characters or ":"');
  if (d.resourceId === CENTRAL_RESOURCE) fail(`"${CENTRAL_RESOURCE}" is the built-in resource of the admin API`);
  // RFC 8707 §2: a resource indicator is an absolute URI without a fragment.
  if (!absoluteUri(d.identifier) || d.identifier.includes('#')) fail('identifier must be an absolute URI without a fragment');
  // RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ).
  for (const s of d.scopes) if (!SCOPE_TOKEN.test(s)) fail(`scope "${s}" is not a scope token`);
  if (d.upstreamUrl !== undefined && !/^https?:\/\//.test(d.upstreamUrl)) fail('upstream_url must be an http(s) URL');
  if (d.upstreamUrl !== undefined && !absoluteUri(d.upstreamUrl)) fail('upstream_url must be an absolute URL');
  if (d.upstreamUrl !== undefined && (new URL(d.upstreamUrl).search || new URL(d.upstreamUrl).hash)) fail('upstream_url must have no query or fragment');
  for (const c of d.introspectionClients ?? []) if (!/^[\x21-\x7e]{1,255}$/.test(c)) fail(`introspection client "${c}" is not a client id`);
  const routes = routesFault(d.routes ?? [], d.identityHeader);
  if (routes) fail(routes);
}

/** One decider serves both streams of a resource: its identifier's reservation and the resource itself. */
export const resourceDecider: Decider<ResourceCommand, ResourceEvent, ResourceState> = {
  initialState: {},
  decide(command, state) {
    switch (command.kind) {
      case 'ReserveIdentifier':
        if (state.reservedFor === command.resourceId) return [];
        if (state.reservedFor) throw new DomainError('already_exists', `the identifier ${command.identifier} belongs, or belonged, to resource ${state.reservedFor}`);
        return [{ type: 'ResourceIdentifierReserved', data: { tenantId: command.tenantId, identifier: command.identifier, resourceId: command.resourceId } }];
      case 'CreateResource':
        validateResource(command.definition);
        if (state.definition) throw new DomainError('already_exists', `a resource ${command.definition.resourceId} exists`);
        return [{ type: 'ResourceCreated', data: { tenantId: command.tenantId, ...command.definition } }];
      case 'UpdateResource': {
        if (!state.definition || !state.tenantId) throw new DomainError('not_found', 'no such resource');
        if (command.definition.identifier !== state.definition.identifier) throw new DomainError('invalid_value', 'identifier cannot change');
        validateResource(command.definition);
        return [{ type: 'ResourceUpdated', data: { tenantId: state.tenantId, ...command.definition } }];
      }
      case 'DeleteResource':
        if (!state.definition || !state.tenantId) throw new DomainError('not_found', 'no such resource');
        return [{ type: 'ResourceDeleted', data: { tenantId: state.tenantId, resourceId: state.definition.resourceId } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ResourceIdentifierReserved':
        return { ...state, reservedFor: event.data.resourceId };
      case 'ResourceCreated':
      case 'ResourceUpdated': {
        const { tenantId, ...definition } = event.data;
        return { ...state, tenantId, definition };
      }
      case 'ResourceDeleted':
        return { ...state, definition: undefined };
      default:
        return assertNever(event);
    }
  },
};
