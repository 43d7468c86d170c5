import type { ResourceRoute } from '../src/domain/resource/resource-routes.js';
import type { Projection } from './projection.js';

/** The tenant's resources (APIs), keyed `<tenant>/<resource id>`. */
export interface ResourceView {
  tenantId: string;
  resourceId: string;
  identifier: string;
  name?: string;
  scopes: string[];
  upstreamUrl?: string;
  routes?: ResourceRoute[];
  identityHeader?: string;
  forwardToken?: boolean;
  /** The clients that may introspect tokens for this resource. */
  introspectionClients?: string[];
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
