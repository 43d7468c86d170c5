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
  /** Self-service sign-up at `{issuer}/users/registrations` is open. */
  registrationEnabled: boolean;
  /** Its admin tokens act on every tenant. */
  operator: boolean;
  // PAR:
  /** RFC 9126 §5: authorization requests only by `request_uri` from `/par`, for every client. */
  requirePushedAuthorizationRequests: boolean;
  /** Seconds between automatic key rotations; absent: none. */
  keyRotationPeriod?: number;
  // DPoP: proofs must carry a server nonce.
  dpopNonceRequired?: boolean;
  createdAt: string;
  updatedAt: string;
  /** The revision of the tenant's stream this document shows: its ETag in the admin API. */
  revision: number;
}

export const tenantsProjection: Projection<TenantView> = {
  view: 'tenants',
  // 8: registrationEnabled and TenantDeleted. 9: dpopNonceRequired. 10: requirePushedAuthorizationRequests. 11: security profiles (`strict` upcast).
  version: 11,
  eventTypes: ['TenantCreated', 'TenantSettingsChanged', 'TenantDeleted'],
  indexes: [],
  documentId: (e) => e.data.tenantId,
  readsDocument: (e) => e.type === 'TenantSettingsChanged',
  apply(doc, e) {
    if (e.type === 'TenantDeleted' || (e.type === 'TenantSettingsChanged' && !doc)) return null;
    const { tenantId, securityProfile, accessTokenTtl, refreshTokenTtl, signingAlg, refreshWithoutOfflineAccess, sessionMaxAge, sessionIdleTimeout, operator, keyRotationPeriod, registrationEnabled, dpopNonceRequired, requirePushedAuthorizationRequests } = e.data;
    return {
      tenantId,
      securityProfile,
      accessTokenTtl,
      refreshTokenTtl,
      signingAlg,
      refreshWithoutOfflineAccess,
      sessionMaxAge: sessionMaxAge ?? DEFAULT_SESSION_MAX_AGE,
      sessionIdleTimeout: sessionIdleTimeout ?? DEFAULT_SESSION_IDLE_TIMEOUT,
      registrationEnabled: registrationEnabled === true,
      requirePushedAuthorizationRequests: requirePushedAuthorizationRequests === true,
      operator: e.type === 'TenantCreated' ? operator === true : doc!.operator,
      ...(keyRotationPeriod !== undefined ? { keyRotationPeriod } : {}),
      ...(dpopNonceRequired ? { dpopNonceRequired: true } : {}),
      createdAt: e.type === 'TenantCreated' ? e.metadata.occurredAt : doc!.createdAt,
      updatedAt: e.metadata.occurredAt,
      revision: e.revision,
    };
  },
};
