import type { Projection } from './projection.js';

/**
 * Which clients had a grant in which live session, for back-channel logout: one document per
 * session and client, keyed `<tenant>/<session id>/<client id>`, from the session's first code
 * for the client to the session's end. A user disabled or deleted, or a client deleted, ends
 * the sessions these documents name. `since`: the position of the first code, so that a
 * delivery worker reading an older event skips sessions begun after it.
 */
export interface BackchannelSessionView {
  tenantId: string;
  sessionId: string;
  clientId: string;
  userId: string;
  since: number;
}

export const backchannelSessionKey = (tenantId: string, sessionId: string, clientId: string) => `${tenantId}/${sessionId}/${clientId}`;

export const backchannelSessionsProjection: Projection<BackchannelSessionView> = {
  view: 'backchannel_sessions',
  version: 1,
  eventTypes: ['CodeIssued', 'SessionRevoked'],
  indexes: [{ fields: ['tenantId', 'userId'] }, { fields: ['tenantId', 'clientId'] }],
  documentId(e) {
    const d = e.data;
    if (e.type === 'CodeIssued') return backchannelSessionKey(d.tenantId, d.sessionId, d.clientId);
    const grants: Array<{ clientId: string }> = [...(d.grants ?? []), ...(d.kept ?? [])];
    return [...new Set(grants.map((g) => backchannelSessionKey(d.tenantId, d.sessionId, g.clientId)))];
  },
  readsDocument: (e) => e.type === 'CodeIssued',
  apply(doc, e) {
    if (e.type === 'SessionRevoked') return null;
    const d = e.data;
    return doc ?? { tenantId: d.tenantId, sessionId: d.sessionId, clientId: d.clientId, userId: d.userId, since: e.position };
  },
};
