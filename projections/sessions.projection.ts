import type { Projection } from './projection.js';

/** The refresh token a grant holds now (a rotated one is no longer here). */
export interface CurrentRefresh {
  hash: string;
  clientId: string;
  scope: string[];
  issuedAt: number;
  expiresAt: number;
}

/** Sessions keyed `<tenant>/<session id>`: who, since when, each grant's current refresh token, and what was revoked. */
export interface SessionView {
  tenantId: string;
  sessionId: string;
  userId: string;
  authTime: number;
  startedAt: string;
  revoked: boolean;
  revokedAt?: string;
  revokedReason?: string;
  revokedGrants: string[];
  /** By grant id. */
  refresh: Record<string, CurrentRefresh>;
}

export const sessionKey = (tenantId: string, sessionId: string) => `${tenantId}/${sessionId}`;

export const sessionsProjection: Projection<SessionView> = {
  view: 'sessions',
  version: 3,
  eventTypes: ['SessionStarted', 'UserAuthenticated', 'RefreshTokenIssued', 'RefreshRotated', 'TokenRevoked', 'GrantRevoked', 'SessionRevoked'],
  indexes: [{ fields: ['tenantId', 'userId'] }],
  documentId: (e) => (e.data.sessionId ? sessionKey(e.data.tenantId, e.data.sessionId) : undefined),
  apply(doc, e) {
    const d = e.data;
    if (e.type === 'SessionStarted') {
      return { tenantId: d.tenantId, sessionId: d.sessionId, userId: d.userId, authTime: d.authTime, startedAt: e.metadata.occurredAt, revoked: false, revokedGrants: [], refresh: {} };
    }
    if (!doc) return null;
    switch (e.type) {
      case 'UserAuthenticated':
        return { ...doc, authTime: d.authTime };
      case 'RefreshTokenIssued':
      case 'RefreshRotated': {
        const current: CurrentRefresh = { hash: d.refreshHash ?? d.toHash, clientId: d.clientId, scope: d.scope, issuedAt: d.issuedAt, expiresAt: d.expiresAt };
        return { ...doc, refresh: { ...doc.refresh, [d.grantId]: current } };
      }
      case 'TokenRevoked': {
        if (d.tokenType !== 'refresh_token' || doc.refresh[d.grantId]?.hash !== d.refreshHash) return doc;
        const { [d.grantId]: _revoked, ...rest } = doc.refresh;
        return { ...doc, refresh: rest };
      }
      case 'GrantRevoked':
        return { ...doc, revokedGrants: [...doc.revokedGrants, d.grantId] };
      case 'SessionRevoked':
        return { ...doc, revoked: true, revokedAt: e.metadata.occurredAt, revokedReason: d.reason };
      default:
        return doc;
    }
  },
};
