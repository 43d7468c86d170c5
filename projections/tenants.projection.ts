import { DEFAULT_SESSION_IDLE_TIMEOUT, DEFAULT_SESSION_MAX_AGE } from '../src/domain/tenant/tenant.events.js';
import type { Projection } from './projection.js';

export interface TenantView {
  tenantId: string;
  securityProfile: string;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  signingAlg: string;
  refreshWithoutOfflineAccess: boolean;
  /** Seconds a browser sign-in counts for (see TenantSettings). */
  sessionMaxAge: number;
  /** Seconds a browser session may go unused (see TenantSettings). */
  sessionIdleTimeout: number;
  /** Its admin tokens act on every tenant. */
  operator: boolean;
  createdAt: string;
}

export const tenantsProjection: Projection<TenantView> = {
  view: 'tenants',
  version: 4,
  eventTypes: ['TenantCreated'],
  indexes: [],
  documentId: (e) => e.data.tenantId,
  apply(_doc, e) {
    const { tenantId, securityProfile, accessTokenTtl, refreshTokenTtl, signingAlg, refreshWithoutOfflineAccess, sessionMaxAge, sessionIdleTimeout, operator } = e.data;
    return {
      tenantId,
      securityProfile,
      accessTokenTtl,
      refreshTokenTtl,
      signingAlg,
      refreshWithoutOfflineAccess,
      sessionMaxAge: sessionMaxAge ?? DEFAULT_SESSION_MAX_AGE,
      sessionIdleTimeout: sessionIdleTimeout ?? DEFAULT_SESSION_IDLE_TIMEOUT,
      operator: operator === true,
      createdAt: e.metadata.occurredAt,
    };
  },
};
