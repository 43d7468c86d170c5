import type { RecordedEvent } from '../infrastructure/event-store/event-store.port.js';

/**
 * The public contract of the event feed: CloudEvents 1.0 (JSON format) mapped from domain
 * events, in this one file. Domain events may change shape (and be upcast); these do not: a
 * new field is added, a type is never reshaped. `data` never carries a secret or a hash of
 * one, nor anything a subscriber does not need (no addresses, user agents, usernames).
 */
export interface IntegrationEvent {
  specversion: '1.0';
  /** The id of the domain event it comes from: unique within `source`, the same on every read. */
  id: string;
  /** The tenant's issuer. */
  source: string;
  type: IntegrationEventType;
  time: string;
  subject: string;
  datacontenttype: 'application/json';
  /** Extension attribute: the event's position in the feed, to resume after (`after=`, `Last-Event-ID`). */
  cursor: string;
  data: Record<string, unknown>;
}

export const INTEGRATION_EVENT_TYPES = [
  'session.revoked',
  'token.revoked',
  'grant.revoked',
  'refresh_token.replayed',
  'user.disabled',
  'user.enabled',
  'user.deleted',
  'client.deleted',
  'signing_key.rotated',
] as const;
export type IntegrationEventType = (typeof INTEGRATION_EVENT_TYPES)[number];

type Mapped = { type: IntegrationEventType; subject: string; data: Record<string, unknown> } | undefined;

/** Only defined members: an absent optional field stays absent on the wire. */
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const MAPPERS: Record<string, (d: any) => Mapped> = {
  SessionRevoked: (d) => ({
    type: 'session.revoked',
    subject: d.sessionId,
    data: { sid: d.sessionId, sub: d.userId, reason: d.reason, client_ids: [...new Set([...(d.grants ?? []), ...(d.kept ?? [])].map((g: { clientId: string }) => g.clientId))] },
  }),
  // One token revoked by itself; the refresh token's hash stays inside (a subscriber has no use for it).
  TokenRevoked: (d) => ({
    type: 'token.revoked',
    subject: d.jti ?? d.grantId ?? d.clientId,
    data: defined({ client_id: d.clientId, token_type: d.tokenType, reason: d.reason, sub: d.userId, sid: d.sessionId, jti: d.jti, grant_id: d.grantId }),
  }),
  // A grant's end that no other event of the feed announces (a revoked or replayed refresh token has its own).
  GrantRevoked: (d) =>
    d.reason === 'code_replayed' || d.reason === 'admin'
      ? { type: 'grant.revoked', subject: d.grantId, data: { grant_id: d.grantId, client_id: d.clientId, sub: d.userId, sid: d.sessionId, reason: d.reason } }
      : undefined,
  RefreshReplayed: (d) => ({ type: 'refresh_token.replayed', subject: d.sessionId, data: { sid: d.sessionId, sub: d.userId, client_id: d.clientId, grant_id: d.grantId } }),
  UserDisabled: (d) => ({ type: 'user.disabled', subject: d.userId, data: { sub: d.userId } }),
  UserEnabled: (d) => ({ type: 'user.enabled', subject: d.userId, data: { sub: d.userId } }),
  UserDeleted: (d) => ({ type: 'user.deleted', subject: d.userId, data: { sub: d.userId } }),
  ClientDeleted: (d) => ({ type: 'client.deleted', subject: d.clientId, data: { client_id: d.clientId } }),
  SigningKeyActivated: (d) => ({ type: 'signing_key.rotated', subject: d.kid, data: defined({ kid: d.kid, alg: d.alg, previous_kid: d.replaced }) }),
};

/** The domain event types the feed reads. */
export const FEED_SOURCE_TYPES: readonly string[] = Object.keys(MAPPERS);

/** The tenant a domain event belongs to. */
export const tenantOf = (e: RecordedEvent): string | undefined => e.metadata.tenantId ?? (e.data as { tenantId?: string } | null)?.tenantId;

/** The integration event a domain event of the tenant (whose issuer is `issuer`) becomes, or undefined when it becomes none. */
export function integrationEvent(e: RecordedEvent, issuer: string): IntegrationEvent | undefined {
  const mapped = Object.hasOwn(MAPPERS, e.type) ? MAPPERS[e.type](e.data) : undefined;
  if (!mapped) return undefined;
  return { specversion: '1.0', id: e.id, source: issuer, type: mapped.type, time: e.metadata.occurredAt, subject: mapped.subject, datacontenttype: 'application/json', cursor: String(e.position), data: mapped.data };
}
