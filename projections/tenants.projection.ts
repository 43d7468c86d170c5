import type { Projection } from './projection.js';

export interface TenantView {
  tenantId: string;
  securityProfile: string;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  signingAlg: string;
  refreshWithoutOfflineAccess: boolean;
  createdAt: string;
}

export const tenantsProjection: Projection<TenantView> = {
  view: 'tenants',
  version: 1,
  eventTypes: ['TenantCreated'],
  indexes: [],
  documentId: (e) => e.data.tenantId,
  apply(_doc, e) {
    const { tenantId, securityProfile, accessTokenTtl, refreshTokenTtl, signingAlg, refreshWithoutOfflineAccess } = e.data;
    return { tenantId, securityProfile, accessTokenTtl, refreshTokenTtl, signingAlg, refreshWithoutOfflineAccess, createdAt: e.metadata.occurredAt };
  },
};
