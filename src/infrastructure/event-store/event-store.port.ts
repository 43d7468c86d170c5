/**
 * The event store port, with the semantics of EventStoreDB: named streams with
 * revisions starting at 0, one global position per event (strictly increasing in
 * commit order), optimistic concurrency on append, and catch-up subscriptions.
 */

/** Metadata carried by every event: who did what, on whose behalf, and when. */
export interface EventMetadata {
  tenantId?: string;
  /** `user:<id>`, `client:<id>`, `admin:<id>`, `system`, or `anonymous` (a self-service sign-up). */
  actor: string;
  correlationId: string;
  causationId?: string;
  /**
   * Where the HTTP request that caused the event came from: the client's address (behind
   * proxies named in `TRUST_PROXY`, the address they forwarded) and its `User-Agent` (at most
   * 512 characters). Absent on events no request caused.
   */
  sourceIp?: string;
  userAgent?: string;
  /** ISO 8601 time at which the fact happened (injected, never read in a decider). */
  occurredAt: string;
  /** Version of the event's data shape; a type is never reshaped, only upcast. */
  schemaVersion: number;
}

/** The HTTP request a command comes from: its id (the correlation id of its events) and where it came from. */
export type RequestOrigin = Pick<EventMetadata, 'correlationId' | 'sourceIp' | 'userAgent'>;

/**
 * An event to append. `id` is a UUID; appending the same ids again is a no-op. `data` holds
 * plain JSON values only (no Date, BigInt, NaN or cycles; an `undefined` member counts as
 * absent): it is stored as JSON, and a live subscriber of the embedded store receives the
 * appended objects themselves, so both must read the same. Data that cannot be written as
 * JSON fails its own append and no other.
 */
export interface EventData<T extends string = string, D = unknown> {
  id: string;
  type: T;
  data: D;
  metadata: EventMetadata;
}

/** An event as stored. */
export interface RecordedEvent<T extends string = string, D = unknown> extends EventData<T, D> {
  streamId: string;
  /** Zero-based revision of the event in its stream. */
  revision: number;
  /** Global position in the log; strictly increasing, not necessarily contiguous. */
  position: number;
}

/** `no_stream`: the stream must not exist. `stream_exists`: it must. A number: the stream's last revision. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

/** One stream's part of an atomic append of several (EventStore.appendTogether). */
export interface StreamAppend {
  streamId: string;
  events: readonly EventData[];
  expected: ExpectedRevision;
}

export interface AppendResult {
  /** Revision of the last event now in the stream. */
  nextRevision: number;
  /** Global position of the last event appended (or of the earlier identical append). */
  position: number;
}

export interface ReadStreamOptions {
  fromRevision?: number;
  maxCount?: number;
}

/** Selects events by type or by stream-name prefix; both lists are alternatives (OR). */
export interface EventFilter {
  eventTypes?: readonly string[];
  streamPrefixes?: readonly string[];
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. 0 or absent reads from the start. */
  afterPosition?: number;
  maxCount?: number;
  filter?: EventFilter;
}

/** A catch-up subscription: replays from the position, then delivers live events in order. */
export interface Subscription extends AsyncIterable<RecordedEvent> {
  close(): Promise<void>;
}

export interface EventStore {
  /**
   * True when this process is the only writer of the log (the embedded file), so state
   * folded here cannot miss an append made elsewhere.
   */
  readonly exclusive: boolean;
  append(streamId: string, events: readonly EventData[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * Appends to several streams in one atomic write: every append is in the log or none is. A
   * refused one (WrongExpectedRevisionError, naming its stream) refuses them all. Results come
   * in the order given. Only a store that can write several streams atomically offers it (the
   * embedded one, in one transaction); EventStoreDB cannot, so its adapter leaves it out and
   * callers append in turn there.
   */
  appendTogether?(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
  /** Events of one stream in revision order; an absent stream reads as empty. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * The events at these global positions, in log order; a position that holds no event is left
   * out. Views that index the log (the audit trail) keep positions and read the events here.
   */
  readPositions(positions: readonly number[]): Promise<RecordedEvent[]>;
  subscribeToAll(options?: { afterPosition?: number; filter?: EventFilter }): Subscription;
  /**
   * Marks the stream disposable from `at` (milliseconds since the epoch): from then on its
   * events may be gone from every read, and its position numbers are never given to other
   * events. Until then the stream is untouched, so an append that expects `no_stream` still
   * fails. A later mark replaces an earlier one. Meant for single-use streams (a jti, a pushed
   * request) that nothing reads once they have expired.
   */
  expireStream(streamId: string, at: number): Promise<void>;
  /**
   * Deletes the events of up to `limit` streams whose mark is at or before `now` (milliseconds);
   * returns how many streams. The embedded store deletes here; EventStoreDB expires them by
   * itself (its `$maxAge` and `$tb` stream metadata hide them from stream reads at once, from
   * `$all` once a scavenge has run) and returns 0.
   */
  sweepExpired(now: number, limit: number): Promise<number>;
  /** Position of the newest event in the log (0 when empty). */
  headPosition(): Promise<number>;
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');

/** Thrown when the stream's revision is not the expected one. */
export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/**
 * Thrown when the store cannot take an operation now (a full disk, an I/O error, the file
 * locked by another program; no EventStoreDB server to reach): the same command may succeed
 * later. The embedded store rolled the write back; behind EventStoreDB, a connection lost
 * after the server took an append may leave that append done.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * Thrown when a write failed after it may have been taken (the embedded store's fsync failed
 * once the transaction was written, whose recovery at the next start decides; EventStoreDB gave
 * no answer before the deadline): the append may be in the log or not. Telling the caller to retry as if nothing had
 * happened would be wrong (a refresh token rotated this way would count as replayed).
 */
export class StoreOutcomeUnknownError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreOutcomeUnknownError';
  }
}

/** True when the event passes the filter (an absent or empty filter passes everything). */
export function matchesFilter(event: { type: string; streamId: string }, filter?: EventFilter): boolean {
  if (!filter) return true;
  const types = filter.eventTypes ?? [];
  const prefixes = filter.streamPrefixes ?? [];
  if (types.length === 0 && prefixes.length === 0) return true;
  return types.includes(event.type) || prefixes.some((p) => event.streamId.startsWith(p));
}
