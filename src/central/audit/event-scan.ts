import type { EventStore, RecordedEvent } from '../../infrastructure/event-store/event-store.port.js';
import type { EventQuery } from './audit-query.js';
import { redacted } from './redaction.js';

/** Events read from the log at a time. */
export const SCAN_BATCH = 500;
/** Events one page may read at most, whatever it finds: a sparse tenant cannot make a request read the whole log. */
export const MAX_SCAN = 10_000;

/** One batch of a scan: the events that passed, and where to resume once they are taken. */
export interface ScanBatch {
  matches: RecordedEvent[];
  /** The position to read after next time: the last match taken when the limit was reached, otherwise the last event read. */
  next: number;
  /** The scan read to the end of the log (or of the range it was given). */
  end: boolean;
}

/**
 * The tenant an event belongs to: its metadata's, else the tenant its stream names (streams are
 * `<kind>-<tenant>` or `<kind>-<tenant>.<id>`, and tenant ids have no dot).
 */
export function tenantOf(e: RecordedEvent): string | undefined {
  if (e.metadata?.tenantId) return e.metadata.tenantId;
  const dash = e.streamId.indexOf('-');
  if (dash < 1) return undefined;
  const rest = e.streamId.slice(dash + 1);
  const dot = rest.indexOf('.');
  return dot < 0 ? rest : rest.slice(0, dot);
}

function passes(e: RecordedEvent, tenantId: string, q: EventQuery): boolean {
  if (tenantOf(e) !== tenantId) return false;
  if (q.types && !q.types.has(e.type)) return false;
  if (q.stream !== undefined && e.streamId !== q.stream) return false;
  if (q.actor !== undefined && e.metadata.actor !== q.actor) return false;
  if (q.since !== undefined || q.until !== undefined) {
    const at = Date.parse(e.metadata.occurredAt);
    if (q.since !== undefined && !(at >= q.since)) return false;
    if (q.until !== undefined && !(at < q.until)) return false;
  }
  return true;
}

export interface ScanBounds {
  /** Events to read at most (none: no bound). */
  maxScan?: number;
  /** The last position to read (the log's head when the scan began, for a stream that must end). */
  head?: number;
}

/**
 * The tenant's events after `q.after` that pass the filters, in log order, a batch at a time:
 * each batch is read when the previous one has been taken, so a consumer that writes to a slow
 * socket holds one batch in memory. Stops at `q.limit` matches, at `maxScan` events read, or at
 * the end of the log (or `head`). Filters run here, not in the store: a store-side filter on a
 * rare type would read the whole log in one call.
 */
export async function* scanEvents(store: EventStore, tenantId: string, q: EventQuery, bounds: ScanBounds = {}): AsyncGenerator<ScanBatch> {
  let after = q.after;
  let scanned = 0;
  let taken = 0;
  for (;;) {
    const want = Math.min(SCAN_BATCH, bounds.maxScan !== undefined ? bounds.maxScan - scanned : SCAN_BATCH);
    const read = await store.readAll({ afterPosition: after, maxCount: want });
    const events = bounds.head !== undefined ? read.filter((e) => e.position <= bounds.head!) : read;
    const matches: RecordedEvent[] = [];
    for (const e of events) {
      scanned++;
      after = e.position;
      if (!passes(e, tenantId, q)) continue;
      matches.push(e);
      if (q.limit !== undefined && ++taken >= q.limit) {
        yield { matches, next: after, end: false };
        return;
      }
    }
    const end = read.length < want || events.length < read.length;
    if (end || (bounds.maxScan !== undefined && scanned >= bounds.maxScan)) {
      yield { matches, next: after, end };
      return;
    }
    if (matches.length) yield { matches, next: after, end: false };
  }
}

/** An event as the audit routes show it: as recorded, with the withheld fields replaced (see redaction.ts). */
export function auditEvent(e: RecordedEvent): Record<string, unknown> {
  return { id: e.id, type: e.type, stream: e.streamId, revision: e.revision, position: e.position, data: redacted(e.data), metadata: e.metadata };
}
