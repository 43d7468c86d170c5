/**
 * A projection folds events into documents of one view. It is pure: it imports no Nest,
 * no driver and no clock, so a rebuild from position 0 yields what the live run yielded.
 */

/** The part of a recorded event a projection may read. */
export interface ProjectedEvent {
  id: string;
  type: string;
  streamId: string;
  revision: number;
  position: number;
  data: any;
  metadata: { tenantId?: string; actor: string; correlationId: string; causationId?: string; sourceIp?: string; userAgent?: string; occurredAt: string };
}

/** A secondary index of a view: equality lookups on these fields, in this order. */
export interface IndexSpec {
  fields: readonly string[];
  unique?: boolean;
  /**
   * Only documents that have the last field are in the index: a view whose documents mostly
   * lack it (a history entry with no session) does not pay an index entry for each of them.
   * Equality lookups on the field find the same documents either way.
   */
  sparse?: boolean;
}

export interface Projection<D extends object = Record<string, unknown>> {
  /** View (collection) name. */
  readonly view: string;
  /** Bumping the version makes the runner rebuild the view from position 0 at start-up. */
  readonly version: number;
  /** Event types this view follows; others never reach `apply`. */
  readonly eventTypes: readonly string[];
  readonly indexes: readonly IndexSpec[];
  /** The id of the document an event touches (or the ids, when it touches several), or undefined. */
  documentId(event: ProjectedEvent): string | readonly string[] | undefined;
  /** Document (or nothing) in, document (or nothing) out; `id` says which document, when an event touches several. */
  apply(doc: D | null, event: ProjectedEvent, id: string): D | null;
  /**
   * Whether `apply` reads the stored document `id` for this event (true when absent). An event
   * that creates its document (a new token, a history entry) is applied without reading the
   * view; the runner's checkpoint, written with the documents, keeps it from being applied twice.
   */
  readsDocument?(event: ProjectedEvent, id: string): boolean;
}
