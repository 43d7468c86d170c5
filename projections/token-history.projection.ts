import type { ProjectedEvent, Projection } from './projection.js';

/**
 * The audit trail of token lifecycles, as an index of the log: one small document per event of
 * a session or a client's tokens, holding only what finds it (session, subject, client, access
 * token, ended grant); the event itself is read from the log by its position (the document's
 * `_position`). Reading is one indexed read of this view and one read of the log by position;
 * what an entry shows of its event is decided at read time (src/central/audit/history-event.ts).
 *
 * A `SessionRevoked` ends the grants of several clients: besides its entry for the session and
 * the subject, each of those clients gets an entry of its own (with `clientId` alone, so that
 * the session's and the subject's histories list it once). So does the client that presented
 * another client's code or token (`CodeRefused`, `RefreshRefused`, `RevocationRefused`): it
 * holds a credential that leaked.
 *
 * A token's own history is two indexed reads: its events by `jti` (issue, revocation, refused
 * revocations), and the ends of the grant its `jti` names by `endsGrant` (the `GrantRevoked`,
 * or one entry per grant a `SessionRevoked` ended, with `endsGrant` alone among the keys).
 */
export interface TokenHistoryEntry {
  tenantId: string;
  sessionId?: string;
  sub?: string;
  clientId?: string;
  /** The access token the event concerns (issued, revoked, or refused revocation). */
  jti?: string;
  /** The grant whose tokens this event ended. */
  endsGrant?: string;
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
  // The end of every token of the client (see ClientDeleted).
  'ClientDeleted',
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

/**
 * Whose entry of its event a document is: the event's own (found by its session, subject,
 * client, token), another client's (found by that client), or a grant's end (found by the grant).
 */
export type EntryPart = { kind: 'own' } | { kind: 'client'; clientId: string } | { kind: 'grant'; grantId: string };

/** The part a document id names (see `documentId` below). */
export function entryPart(id: string, tenantId: string, position: number): EntryPart {
  const key = historyKey(tenantId, position);
  if (id.startsWith(`${key}#`)) return { kind: 'grant', grantId: id.slice(key.length + 1) };
  if (id.startsWith(`${key}/`)) return { kind: 'client', clientId: id.slice(key.length + 1) };
  return { kind: 'own' };
}

/** The keys that find the event's own entry. */
function ownKeys(e: ProjectedEvent): TokenHistoryEntry {
  const d = e.data;
  // Optional fields by assignment: every token issued passes here (see src/domain/shared/merged.ts).
  const entry: TokenHistoryEntry = { tenantId: d.tenantId };
  const sub = d.sub ?? d.userId;
  if (d.sessionId) entry.sessionId = d.sessionId;
  if (sub) entry.sub = sub;
  if (d.clientId) entry.clientId = d.clientId;
  if (d.jti) entry.jti = d.jti;
  if (e.type === 'GrantRevoked') entry.endsGrant = d.grantId;
  return entry;
}

export const tokenHistoryProjection: Projection<TokenHistoryEntry> = {
  view: 'token_history',
  version: 14,
  eventTypes: TOKEN_HISTORY_EVENTS,
  indexes: [
    { fields: ['tenantId', 'sessionId'], sparse: true },
    { fields: ['tenantId', 'sub'], sparse: true },
    { fields: ['tenantId', 'clientId'], sparse: true },
    { fields: ['tenantId', 'jti'], sparse: true },
    { fields: ['tenantId', 'endsGrant'], sparse: true },
  ],
  documentId(e) {
    const key = historyKey(e.data.tenantId, e.position);
    const others = [...otherClients(e).map((clientId) => `${key}/${clientId}`), ...endedGrants(e).map((g) => grantEndKey(key, g.grantId))];
    return others.length ? [key, ...others] : key;
  },
  readsDocument: () => false,
  apply(_doc, e, id) {
    const part = entryPart(id, e.data.tenantId, e.position);
    if (part.kind === 'grant') return { tenantId: e.data.tenantId, endsGrant: part.grantId };
    if (part.kind === 'client') return { tenantId: e.data.tenantId, clientId: part.clientId };
    return ownKeys(e);
  },
};
