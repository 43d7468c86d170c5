import type { ProjectedEvent, Projection } from './projection.js';

/**
 * The audit trail of token lifecycles: one document per event of a session or a client's
 * tokens, found by session, subject or client and read in log order (`_position`). A
 * `SessionRevoked` ends the grants of several clients: besides its entry for the session and
 * the subject, each of those clients gets an entry of its own (with `clientId`, without
 * `sessionId` and `sub`, so that the session's and the subject's histories list it once).
 * So does the client that presented another client's code or token (`CodeRefused`,
 * `RefreshRefused`, `RevocationRefused`): it holds a credential that leaked.
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
  /** Where the request that caused the event came from (see EventMetadata). */
  sourceIp?: string;
  userAgent?: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

export const TOKEN_HISTORY_EVENTS = [
  'SessionStarted',
  'UserAuthenticated',
  'LoginFailed',
  'ClientAuthenticationFailed',
  'ConsentGranted',
  'ConsentDenied',
  'CodeIssued',
  'CodeRedeemed',
  'CodeReplayed',
  'CodeRefused',
  'AccessTokenIssued',
  'RefreshTokenIssued',
  'RefreshRotated',
  'RefreshReplayed',
  'RefreshRefused',
  'RevocationRefused',
  'TokenRevoked',
  'GrantRevoked',
  'SessionRevoked',
] as const;

/**
 * Entries are keyed by tenant and log position (zero-padded, so keys sort like positions):
 * each new entry lands at the end of the view's key index.
 */
export const historyKey = (tenantId: string, position: number) => `${tenantId}/${String(position).padStart(20, '0')}`;

/** A code or token presented by another client than its own, refused. */
const REFUSALS = ['CodeRefused', 'RefreshRefused', 'RevocationRefused'];

/**
 * The clients besides the event's own whose histories list it: those of the grants a
 * `SessionRevoked` ended (none in events recorded before it listed them) and the one whose
 * logout request it was, and the one that presented another client's code or token.
 */
function otherClients(e: ProjectedEvent): string[] {
  if (e.type === 'SessionRevoked') {
    const grants: Array<{ clientId: string }> = e.data.grants ?? [];
    return [...new Set([...grants.map((g) => g.clientId), ...(e.data.requestedBy ? [e.data.requestedBy] : [])])];
  }
  if (REFUSALS.includes(e.type) && e.data.presentedBy !== e.data.clientId) return [e.data.presentedBy];
  return [];
}

export const tokenHistoryProjection: Projection<TokenHistoryEntry> = {
  view: 'token_history',
  version: 10,
  eventTypes: TOKEN_HISTORY_EVENTS,
  indexes: [{ fields: ['tenantId', 'sessionId'] }, { fields: ['tenantId', 'sub'] }, { fields: ['tenantId', 'clientId'] }],
  documentId(e) {
    const key = historyKey(e.data.tenantId, e.position);
    const others = otherClients(e);
    return others.length ? [key, ...others.map((clientId) => `${key}/${clientId}`)] : key;
  },
  readsDocument: () => false,
  apply(_doc, e, id) {
    const d = e.data;
    const m = e.metadata;
    // Optional fields by assignment: every token issued passes here (see src/domain/shared/merged.ts).
    const meta = { tenantId: d.tenantId, eventId: e.id, type: e.type, actor: m.actor, correlationId: m.correlationId } as Omit<TokenHistoryEntry, 'data'>;
    if (m.sourceIp) meta.sourceIp = m.sourceIp;
    if (m.userAgent) meta.userAgent = m.userAgent;
    meta.occurredAt = m.occurredAt;
    const key = historyKey(d.tenantId, e.position);
    if (id !== key) {
      const clientId = id.slice(key.length + 1);
      // A session's end, in the history of a client it concerns, names that client's grants
      // only, and who ended it only when that was the client or the session's user: nothing of
      // where the user was, of other clients, or of another user who signed in.
      if (e.type === 'SessionRevoked') {
        const { sourceIp: _ip, userAgent: _agent, actor, ...anonymous } = meta;
        const { grants = [], requestedBy, kept = [], ...rest } = d as { grants?: Array<{ clientId: string }>; requestedBy?: string; kept?: Array<{ clientId: string }> };
        const ownKept = kept.filter((g) => g.clientId === clientId);
        const own = { ...rest, grants: grants.filter((g) => g.clientId === clientId), ...(requestedBy === clientId ? { requestedBy } : {}), ...(ownKept.length ? { kept: ownKept } : {}) };
        return { ...anonymous, actor: actor === `client:${clientId}` || actor === `user:${d.userId}` ? actor : 'another party', clientId, data: own };
      }
      // The presenter of another client's code or token is told only that it was refused, and
      // whose it was (and, of a revocation, which kind of token).
      const what = e.type === 'RevocationRefused' ? { tokenType: d.tokenType } : { reason: d.reason };
      return { ...meta, clientId, data: { clientId: d.clientId, presentedBy: d.presentedBy, ...what } };
    }
    const entry = meta as TokenHistoryEntry;
    const sub = d.sub ?? d.userId;
    if (d.sessionId) entry.sessionId = d.sessionId;
    if (sub) entry.sub = sub;
    if (d.clientId) entry.clientId = d.clientId;
    if (d.grantId) entry.grantId = d.grantId;
    entry.data = d;
    return entry;
  },
};
