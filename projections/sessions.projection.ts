import type { Projection } from './projection.js';

/** Sessions keyed `<tenant>/<session id>`: who, since when, and what was revoked. */
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
  /** Grants that outlived the session's end (see SessionRevoked's `kept`); absent when none. */
  keptGrants?: string[];
}

export const sessionKey = (tenantId: string, sessionId: string) => `${tenantId}/${sessionId}`;

export const sessionsProjection: Projection<SessionView> = {
  view: 'sessions',
  version: 3,
  eventTypes: ['SessionStarted', 'UserAuthenticated', 'GrantRevoked', 'SessionRevoked'],
  indexes: [{ fields: ['tenantId', 'userId'] }],
  documentId: (e) => sessionKey(e.data.tenantId, e.data.sessionId),
  apply(doc, e) {
    const d = e.data;
    if (e.type === 'SessionStarted') {
      return { tenantId: d.tenantId, sessionId: d.sessionId, userId: d.userId, authTime: d.authTime, startedAt: e.metadata.occurredAt, revoked: false, revokedGrants: [] };
    }
    if (!doc) return null;
    switch (e.type) {
      case 'UserAuthenticated':
        return { ...doc, authTime: d.authTime };
      case 'GrantRevoked':
        return { ...doc, revokedGrants: [...doc.revokedGrants, d.grantId] };
      case 'SessionRevoked':
        return { ...doc, revoked: true, revokedAt: e.metadata.occurredAt, revokedReason: d.reason, ...(d.kept?.length ? { keptGrants: d.kept.map((g: { grantId: string }) => g.grantId) } : {}) };
      default:
        return doc;
    }
  },
};
