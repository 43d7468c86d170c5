import type { Projection } from './projection.js';

/**
 * The audit trail of token lifecycles: one document per event of a session or a client's
 * tokens, found by session, subject or client and read in log order (`_position`).
 */
export interface TokenHistoryEntry {
  tenantId: string;
  /** The id of the event in the log. */
  eventId: string;
  type: string;
  sessionId?: string;
  sub?: string;
  clientId?: string;
  grantId?: string;
  actor: string;
  correlationId: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

export const TOKEN_HISTORY_EVENTS = [
  'SessionStarted',
  'UserAuthenticated',
  'LoginFailed',
  'ConsentGranted',
  'CodeIssued',
  'CodeRedeemed',
  'CodeReplayed',
  'AccessTokenIssued',
  'RefreshTokenIssued',
  'RefreshRotated',
  'RefreshReplayed',
  'TokenRevoked',
  'GrantRevoked',
  'SessionRevoked',
] as const;

/**
 * Entries are keyed by tenant and log position (zero-padded, so keys sort like positions):
 * each new entry lands at the end of the view's key index.
 */
export const historyKey = (tenantId: string, position: number) => `${tenantId}/${String(position).padStart(20, '0')}`;

export const tokenHistoryProjection: Projection<TokenHistoryEntry> = {
  view: 'token_history',
  version: 2,
  eventTypes: TOKEN_HISTORY_EVENTS,
  indexes: [{ fields: ['tenantId', 'sessionId'] }, { fields: ['tenantId', 'sub'] }, { fields: ['tenantId', 'clientId'] }],
  documentId: (e) => historyKey(e.data.tenantId, e.position),
  readsDocument: () => false,
  apply(_doc, e) {
    const d = e.data;
    const sub = d.sub ?? d.userId;
    return {
      tenantId: d.tenantId,
      eventId: e.id,
      type: e.type,
      ...(d.sessionId ? { sessionId: d.sessionId } : {}),
      ...(sub ? { sub } : {}),
      ...(d.clientId ? { clientId: d.clientId } : {}),
      ...(d.grantId ? { grantId: d.grantId } : {}),
      actor: e.metadata.actor,
      correlationId: e.metadata.correlationId,
      occurredAt: e.metadata.occurredAt,
      data: d,
    };
  },
};
