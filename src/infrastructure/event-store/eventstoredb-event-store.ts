import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type Filter,
  type JSONType,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  type AppendResult,
  type EventData,
  type EventFilter,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  matchesFilter,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  StoreOutcomeUnknownError,
  StoreUnavailableError,
  type Subscription,
  WrongExpectedRevisionError,
} from './event-store.port.js';

const READ_PAGE = 1000;
const QUEUE_HIGH = 1024;
const QUEUE_LOW = 256;

/**
 * The event store on EventStoreDB (gRPC client). Global positions are commit positions of
 * `$all`; system streams and `$`-typed events are never returned.
 */
export class EventStoreDbEventStore implements EventStore {
  /** Several servers may append to one EventStoreDB. */
  readonly exclusive = false;
  private readonly client: EventStoreDBClient;
  private readonly ownsClient: boolean;

  constructor(connection: string | EventStoreDBClient) {
    this.ownsClient = typeof connection === 'string';
    this.client = typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
  }

  async append(streamId: string, events: readonly EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    let result;
    try {
      result = await this.client.appendToStream(
        streamId,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as JSONType, metadata: e.metadata })),
        { expectedRevision: toClientExpected(expected) },
      );
    } catch (error) {
      if (isWrongExpectedVersion(error)) {
        const actual = error.actualVersion;
        throw new WrongExpectedRevisionError(streamId, expected, actual === 'no_stream' ? 'no_stream' : Number(actual));
      }
      throw appendInDoubt(error) ?? unavailable(error) ?? error;
    }
    const nextRevision = Number(result.nextExpectedRevision);
    // A multi-event append reports one position for the whole write, and an idempotent replay
    // may report none: the position of the last event is then read back from the stream.
    const position =
      events.length === 1 && result.position ? Number(result.position.commit) : await this.positionOf(streamId, nextRevision);
    return { nextRevision, position };
  }

  private async positionOf(streamId: string, revision: number): Promise<number> {
    const [event] = await this.readStream(streamId, { fromRevision: revision, maxCount: 1 });
    if (!event || event.revision !== revision) throw new Error(`stream ${streamId}: revision ${revision} not found after append`);
    return event.position;
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount !== undefined && options.maxCount >= 0 ? options.maxCount : undefined;
    if (limit === 0) return [];
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        direction: FORWARDS,
        fromRevision: options.fromRevision ? BigInt(options.fromRevision) : START,
        ...(limit !== undefined ? { maxCount: limit } : {}),
      });
      for await (const resolved of read) {
        const e = toRecorded(resolved);
        if (e) out.push(e);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError || (error as { type?: string }).type === 'stream-not-found') return [];
      throw unavailable(error) ?? error;
    }
    return out;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount !== undefined && options.maxCount >= 0 ? options.maxCount : Infinity;
    const out: RecordedEvent[] = [];
    if (limit === 0) return out;
    let cursor = options.afterPosition ?? 0;
    let from: ReadPosition = cursor > 0 ? toPosition(cursor) : START;
    for (;;) {
      const read = this.client.readAll({ direction: FORWARDS, fromPosition: from, maxCount: READ_PAGE });
      let seen = 0;
      let last: Position | undefined;
      for await (const resolved of read) {
        seen += 1;
        last = resolved.event?.position ?? last;
        const e = toRecorded(resolved);
        // Reading from a position includes the event at that position: `afterPosition` is exclusive.
        if (!e || e.position <= cursor) continue;
        cursor = e.position;
        if (isSystem(e) || !matchesFilter(e, options.filter)) continue;
        out.push(e);
        if (out.length >= limit) {
          await read.cancel();
          return out;
        }
      }
      if (seen < READ_PAGE || !last) return out;
      from = last;
    }
  }

  /** One read of `$all` from each position (reading from a position includes the event there). */
  async readPositions(positions: readonly number[]): Promise<RecordedEvent[]> {
    const wanted = [...new Set(positions)].sort((a, b) => a - b);
    try {
      const found = await Promise.all(
        wanted.map(async (position) => {
          for await (const resolved of this.client.readAll({ direction: FORWARDS, fromPosition: toPosition(position), maxCount: 1 })) {
            const e = toRecorded(resolved);
            if (e && e.position === position && !isSystem(e)) return e;
          }
          return undefined;
        }),
      );
      return found.filter((e): e is RecordedEvent => e !== undefined);
    } catch (error) {
      throw unavailable(error) ?? error;
    }
  }

  subscribeToAll(options: { afterPosition?: number; filter?: EventFilter } = {}): Subscription {
    const filter = options.filter;
    let last = options.afterPosition ?? 0;
    const source = this.client.subscribeToAll({
      fromPosition: last > 0 ? toPosition(last) : START,
      filter: serverFilter(filter),
    });
    const queue: RecordedEvent[] = [];
    let failure: unknown;
    let ended = false;
    let closed = false;
    let wake: (() => void) | undefined;
    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    source.on('data', (resolved: AllStreamResolvedEvent) => {
      let e: RecordedEvent | undefined;
      try {
        e = toRecorded(resolved);
      } catch (error) {
        failure ??= error;
        notify();
        return;
      }
      if (!e || e.position <= last || isSystem(e) || !matchesFilter(e, filter)) return;
      last = e.position;
      queue.push(e);
      if (queue.length >= QUEUE_HIGH) source.pause();
      notify();
    });
    source.on('error', (error: Error) => {
      failure ??= error;
      notify();
    });
    source.on('end', () => {
      ended = true;
      notify();
    });
    source.on('close', () => {
      ended = true;
      notify();
    });

    let stopping: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closed = true;
      notify();
      stopping ??= source
        .unsubscribe()
        .catch(() => undefined)
        .then(() => {
          source.destroy();
        });
      return stopping;
    };

    async function* iterate(): AsyncGenerator<RecordedEvent> {
      try {
        for (;;) {
          if (closed) return;
          const next = queue.shift();
          if (next) {
            if (queue.length <= QUEUE_LOW && source.isPaused()) source.resume();
            yield next;
            continue;
          }
          if (failure) throw failure;
          if (ended) throw new Error('EventStoreDB subscription to $all ended unexpectedly');
          await new Promise<void>((resolve) => (wake = resolve));
        }
      } finally {
        await close();
      }
    }
    const it = iterate();
    return { [Symbol.asyncIterator]: () => it, close };
  }

  /**
   * Stream metadata: `$maxAge` counted from the stream's first event as the server recorded it,
   * so every event stays readable until `at`; a time already past truncates the stream at once
   * (`$tb`). Either way the stream keeps its revision, and the server's scavenge frees the disk.
   */
  async expireStream(streamId: string, at: number): Promise<void> {
    try {
      let first: Date | undefined;
      let last: bigint | undefined;
      for await (const resolved of this.client.readStream(streamId, { direction: FORWARDS, fromRevision: START, maxCount: 1000 })) {
        if (!resolved.event) continue;
        first ??= resolved.event.created;
        last = resolved.event.revision;
      }
      if (first === undefined || last === undefined) return;
      const maxAge = Math.ceil((at - first.getTime()) / 1000);
      await this.client.setStreamMetadata(streamId, maxAge > 0 ? { maxAge } : { truncateBefore: Number(last) + 1 });
    } catch (error) {
      if (error instanceof StreamNotFoundError || (error as { type?: string }).type === 'stream-not-found') return;
      throw unavailable(error) ?? error;
    }
  }

  /** The server trims by itself (see expireStream). */
  async sweepExpired(): Promise<number> {
    return 0;
  }

  async headPosition(): Promise<number> {
    const read = this.client.readAll({ direction: BACKWARDS, fromPosition: END });
    try {
      for await (const resolved of read) {
        const e = toRecorded(resolved);
        if (e && !isSystem(e)) {
          await read.cancel();
          return e.position;
        }
      }
    } catch (error) {
      throw unavailable(error) ?? error;
    }
    return 0;
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.dispose();
  }
}

function toClientExpected(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return expected < 0 ? NO_STREAM : BigInt(expected);
  }
}

/** The client's error types for a server that cannot take the operation now. */
const UNAVAILABLE_TYPES = new Set(['unavailable', 'not-leader', 'deadline-exceeded']);

/**
 * No server to take the operation (no connection, not the leader, no answer in time): a store
 * refusal, which the client may retry. The gRPC statuses UNAVAILABLE (14) and DEADLINE_EXCEEDED
 * (4) come without a type when the client fails while it asks the server what it supports. An
 * append whose answer came too late may still have happened, as after a lost connection.
 */
function unavailable(error: unknown): StoreUnavailableError | undefined {
  const { type, code, message } = (error ?? {}) as { type?: string; code?: number; message?: string };
  return (type && UNAVAILABLE_TYPES.has(type)) || code === 14 || code === 4 ? new StoreUnavailableError(`event store: ${message ?? String(error)}`) : undefined;
}

/**
 * An append whose answer did not come in time may have been taken: its outcome is unknown, as
 * after a failed fsync of the embedded store. (A connection lost mid-append may leave it done
 * too, but the client reports that as UNAVAILABLE, as it does when no server was reached.)
 */
function appendInDoubt(error: unknown): StoreOutcomeUnknownError | undefined {
  const { type, message } = (error ?? {}) as { type?: string; message?: string };
  return type === 'deadline-exceeded' ? new StoreOutcomeUnknownError(`event store: ${message ?? String(error)}; the append may have been taken`) : undefined;
}

function isWrongExpectedVersion(error: unknown): error is WrongExpectedVersionError {
  return error instanceof WrongExpectedVersionError || (error as { type?: string } | null)?.type === 'wrong-expected-version';
}

/** Events appended through gRPC are committed one record each, so commit and prepare positions coincide. */
function toPosition(position: number): Position {
  return { commit: BigInt(position), prepare: BigInt(position) };
}

function isSystem(e: { type: string; streamId: string }): boolean {
  return e.type.startsWith('$') || e.streamId.startsWith('$');
}

function serverFilter(filter?: EventFilter): Filter {
  const types = filter?.eventTypes ?? [];
  const prefixes = filter?.streamPrefixes ?? [];
  if (types.length > 0 && prefixes.length === 0) {
    return eventTypeFilter({ regex: `^(?:${types.map(escapeRegex).join('|')})$` });
  }
  if (prefixes.length > 0 && types.length === 0) return streamNameFilter({ prefixes: [...prefixes] });
  // Types and prefixes together (an OR) cannot be one server filter: filtered client-side.
  return excludeSystemEvents();
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const e = resolved.event;
  if (!e) return undefined;
  const commit = e.position?.commit ?? resolved.commitPosition;
  if (commit === undefined) throw new Error(`EventStoreDB returned event ${e.id} without a position (server older than 22.6?)`);
  return {
    id: e.id,
    type: e.type,
    streamId: e.streamId,
    revision: Number(e.revision),
    position: Number(commit),
    data: decode(e.data),
    metadata: decode(e.metadata) as EventMetadata,
  };
}

function decode(value: unknown): unknown {
  if (!(value instanceof Uint8Array)) return value;
  const text = Buffer.from(value).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
