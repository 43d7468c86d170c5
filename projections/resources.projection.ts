import type { ResourceDefinition } from '../src/domain/resource/resource.events.js';
import type { Projection } from './projection.js';

/** The tenant's resources (APIs), keyed `<tenant>/<resource id>`: the definition as its events last gave it. */
export interface ResourceView extends ResourceDefinition {
  tenantId: string;
  createdAt: string;
  updatedAt: string;
  /** The revision of the resource's stream this document shows: its ETag in the admin API. */
  revision: number;
}

export const resourceKey = (tenantId: string, resourceId: string) => `${tenantId}/${resourceId}`;

export const resourcesProjection: Projection<ResourceView> = {
  view: 'resources',
  version: 1,
  eventTypes: ['ResourceCreated', 'ResourceUpdated', 'ResourceDeleted'],
  indexes: [{ fields: ['tenantId', 'identifier'] }],
  documentId: (e) => resourceKey(e.data.tenantId, e.data.resourceId),
  readsDocument: (e) => e.type === 'ResourceUpdated',
  apply(doc, e) {
    if (e.type === 'ResourceDeleted') return null;
    const { tenantId, resourceId, identifier, name, scopes, upstreamUrl, routes, identityHeader, forwardToken, introspectionClients } = e.data;
    const at = e.metadata.occurredAt;
    const base = { tenantId, resourceId, identifier, scopes, createdAt: doc?.createdAt ?? at, updatedAt: at, revision: e.revision };
    return Object.assign(
      base,
      name !== undefined ? { name } : {},
      upstreamUrl !== undefined ? { upstreamUrl } : {},
      routes !== undefined ? { routes } : {},
      identityHeader !== undefined ? { identityHeader } : {},
      forwardToken !== undefined ? { forwardToken } : {},
      introspectionClients !== undefined ? { introspectionClients } : {},
    );
  },
};
