import type { ProjectedEvent, Projection } from './projection.js';

/**
 * The audit trail of token lifecycles: one document per event of a session or a client's
 * tokens, found by session, subject or client and read in log order (`_position`). A
 * `SessionRevoked` ends the grants of several clients: besides its entry for the session and
 * the subject, each of those clients gets an entry of its own (with `clientId`, without
 * `sessionId` and `sub`, so that the session's and the subject's histories list it once).
 * So does the client that presented another client's code or token (`CodeRefused`,
 * `RefreshRefused`, `RevocationRefused`): it holds a credential that leaked.
 *
 * A token's own history is two indexed reads: its events by `jti` (issue, revocation, refused
 * revocations), and the ends of the grant its `jti` names by `endsGrant` (the `GrantRevoked`,
 * or one entry per grant a `SessionRevoked` ended, with `endsGrant` alone among the keys).
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
  /** The access token the event concerns (issued, revoked, or refused revocation). */
  jti?: string;
  /** The grant whose tokens this event ended. */
  endsGrant?: string;
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
  // Back-channel logout outcomes, in the history of the session they concern.
  'BackchannelLogoutDelivered',
  'BackchannelLogoutFailed',
  'BackchannelLogoutDeadLettered',
] as const;

/**
 * Entries are keyed by tenant and log position (zero-padded, so keys sort like positions):
 * each new entry lands at the end of the view's key index.
 */
export const historyKey = (tenantId: string, position: number) => `${tenantId}/${String(position).padStart(20, '0')}`;

/**
 * The id of a grant's entry of a `SessionRevoked` (`#` sorts before the `/` of a client's entry
 * and before any digit, so every entry of a position sorts before the next position's).
 */
const grantEndKey = (key: string, grantId: string) => `${key}#${grantId}`;

/** The grants a `SessionRevoked` ended (those it kept live on). */
const endedGrants = (e: ProjectedEvent): Array<{ grantId: string; clientId: string }> => (e.type === 'SessionRevoked' ? (e.data.grants ?? []) : []);

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
  version: 12,
  eventTypes: TOKEN_HISTORY_EVENTS,
  indexes: [
    { fields: ['tenantId', 'sessionId'] },
    { fields: ['tenantId', 'sub'] },
    { fields: ['tenantId', 'clientId'] },
    { fields: ['tenantId', 'jti'] },
    { fields: ['tenantId', 'endsGrant'] },
  ],
  documentId(e) {
    const key = historyKey(e.data.tenantId, e.position);
    const others = [...otherClients(e).map((clientId) => `${key}/${clientId}`), ...endedGrants(e).map((g) => grantEndKey(key, g.grantId))];
    return others.length ? [key, ...others] : key;
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
    if (id.startsWith(`${key}#`)) {
      // The grant's end, found by the grant alone: who ended it only when that was its client
      // or the session's user, as in a client's entry below.
      const grant = endedGrants(e).find((g) => grantEndKey(key, g.grantId) === id)!;
      const { sourceIp: _ip, userAgent: _agent, actor, ...anonymous } = meta;
      const { grants: _grants, requestedBy, kept: _kept, ...rest } = d as { grants?: unknown; requestedBy?: string; kept?: unknown };
      const own = { ...rest, grants: [grant], ...(requestedBy === grant.clientId ? { requestedBy } : {}) };
      return { ...anonymous, actor: actor === `client:${grant.clientId}` || actor === `user:${d.userId}` ? actor : 'another party', endsGrant: grant.grantId, data: own };
    }
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
    if (d.jti) entry.jti = d.jti;
    if (e.type === 'GrantRevoked') entry.endsGrant = d.grantId;
    entry.data = d;
    return entry;
  },
};
