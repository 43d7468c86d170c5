import { Inject, Injectable } from '@nestjs/common';
import { type EntryPart, entryPart, historyKey, type TokenHistoryEntry } from '../../../projections/token-history.projection.js';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../../infrastructure/event-store/event-store.port.js';
import { READ_STORE, type ReadStore, type Scalar } from '../../infrastructure/read-store/read-store.port.js';

/** An event of a token history as an entry shows it (see `historyEvent`). */
export interface HistoryEvent {
  position: number;
  eventId: string;
  type: string;
  actor: string;
  correlationId: string;
  sourceIp?: string;
  userAgent?: string;
  occurredAt: string;
  sessionId?: string;
  sub?: string;
  clientId?: string;
  grantId?: string;
  jti?: string;
  data: Record<string, unknown>;
}

type Data = Record<string, any>;

/** Who ended a grant or a session, as a client's history shows it: that client, the session's user, or neither by name. */
const shownActor = (actor: string, clientId: string, d: Data) => (actor === `client:${clientId}` || actor === `user:${d.userId}` ? actor : 'another party');

/**
 * What one entry shows of its event. The event's own entry shows it whole. A session's end, in
 * the history of a grant or a client it concerns, names that client's grants only, and who
 * ended it only when that was the client or the session's user: nothing of where the user was,
 * of other clients, or of another user who signed in. The presenter of another client's code
 * or token is told only that it was refused, and whose it was (and, of a revocation, which kind
 * of token).
 */
export function historyEvent(e: RecordedEvent, part: EntryPart): HistoryEvent {
  const d = e.data as Data;
  const m = e.metadata;
  const meta: HistoryEvent = { position: e.position, eventId: e.id, type: e.type, actor: m.actor, correlationId: m.correlationId, occurredAt: m.occurredAt, data: d };
  if (part.kind === 'grant') {
    const grant = ((d.grants ?? []) as Array<{ grantId: string; clientId: string }>).find((g) => g.grantId === part.grantId)!;
    const { grants: _grants, requestedBy, kept: _kept, ...rest } = d;
    return { ...meta, actor: shownActor(m.actor, grant.clientId, d), data: { ...rest, grants: [grant], ...(requestedBy === grant.clientId ? { requestedBy } : {}) } };
  }
  if (part.kind === 'client') {
    const { clientId } = part;
    if (e.type === 'SessionRevoked') {
      const { grants = [], requestedBy, kept = [], ...rest } = d as { grants?: Array<{ clientId: string }>; requestedBy?: string; kept?: Array<{ clientId: string }> };
      const ownKept = kept.filter((g) => g.clientId === clientId);
      const own = { ...rest, grants: grants.filter((g) => g.clientId === clientId), ...(requestedBy === clientId ? { requestedBy } : {}), ...(ownKept.length ? { kept: ownKept } : {}) };
      return { ...meta, actor: shownActor(m.actor, clientId, d), clientId, data: own };
    }
    const what = e.type === 'RevocationRefused' ? { tokenType: d.tokenType } : { reason: d.reason };
    return { ...withOrigin(meta, m), clientId, data: { clientId: d.clientId, presentedBy: d.presentedBy, ...what } };
  }
  const entry = withOrigin(meta, m);
  const sub = d.sub ?? d.userId;
  if (d.sessionId) entry.sessionId = d.sessionId;
  if (sub) entry.sub = sub;
  if (d.clientId) entry.clientId = d.clientId;
  if (d.grantId) entry.grantId = d.grantId;
  if (d.jti) entry.jti = d.jti;
  return entry;
}

function withOrigin(entry: HistoryEvent, m: RecordedEvent['metadata']): HistoryEvent {
  if (m.sourceIp) entry.sourceIp = m.sourceIp;
  if (m.userAgent) entry.userAgent = m.userAgent;
  return entry;
}

/**
 * Token histories: the `token_history` view finds the entries, the log gives their events.
 * Each filter is one indexed read; their entries are merged in log order.
 */
@Injectable()
export class TokenHistories {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  /**
   * Up to `limit` entries of the tenant matching any of `filters`, after the position `after`,
   * in log order; `firstFound` says whether the first filter matched any entry on this page.
   */
  async find(tenantId: string, filters: ReadonlyArray<Record<string, Scalar>>, page: { after?: number; limit?: number } = {}): Promise<{ events: HistoryEvent[]; firstFound: boolean }> {
    // `0` sorts after every entry of the position `after` (see historyKey) and before the next one.
    const range = page.after ? { afterId: `${historyKey(tenantId, page.after)}0` } : {};
    const limit = page.limit !== undefined ? { limit: page.limit } : {};
    const reads = await Promise.all(filters.map((f) => this.reads.find<TokenHistoryEntry>('token_history', { tenantId, ...f }, { ...range, ...limit, sortBy: '_position' })));
    const docs = reads.length === 1 ? reads[0] : reads.flat().sort((a, b) => a._position - b._position || (a._id < b._id ? -1 : 1));
    const entries = page.limit !== undefined ? docs.slice(0, page.limit) : docs;
    const events = new Map((await this.events.readPositions(entries.map((d) => d._position))).map((e) => [e.position, e]));
    return {
      firstFound: reads[0].length > 0,
      events: entries.flatMap((d) => {
        const e = events.get(d._position);
        return e ? [historyEvent(e, entryPart(d._id, tenantId, d._position))] : [];
      }),
    };
  }
}
