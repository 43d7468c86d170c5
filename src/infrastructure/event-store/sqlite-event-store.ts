import type { Statement } from 'better-sqlite3';
import { openDatabase, type SqliteDatabase } from '../sqlite/open-database.js';
import { SqliteWriter } from '../sqlite/sqlite-writer.js';
import { EVENTS_SCHEMA, type WriterAppend, type WriterError, type WriterOutcome } from '../sqlite/sqlite-writer.thread.js';
import {
  type AppendResult,
  type EventData,
  type EventFilter,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  StoreOutcomeUnknownError,
  type StreamAppend,
  StoreUnavailableError,
  type Subscription,
  WrongExpectedRevisionError,
} from './event-store.port.js';

/** One append, or several to commit together (appendTogether). */
interface PendingAppend {
  parts: Array<{
    events: readonly EventData[];
    /** The append as it crosses to the writer thread. */
    wire: WriterAppend;
  }>;
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

interface Row {
  position: number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
}

const PAGE = 2000;
/** How many of the events appended last are kept in memory for live subscribers. */
const RECENT_LIMIT = 8192;

/** Raised when event ids that were appended before are presented again in another shape. */
export class IdempotencyConflictError extends Error {
  constructor(streamId: string) {
    super(`stream ${streamId}: event ids were already appended with different content or stream`);
    this.name = 'IdempotencyConflictError';
  }
}

/**
 * SQLite's result codes for a write the file could not take now (the transaction is rolled
 * back), as opposed to a bug; a file deleted or replaced under the server is no passing state.
 */
const UNAVAILABLE = /^SQLITE_(FULL|IOERR|BUSY|READONLY(?!_DBMOVED)|CANTOPEN|NOMEM)/;
/**
 * A commit that failed after its frames, commit frame included, were written: at the sync, or
 * at the update of the WAL index that follows it. The running process takes it as rolled back
 * (the next commit writes over those frames), but a restart before that may recover it.
 * (Some of these may also fail before anything is written: a 500 then is the safe mistake.)
 */
const IN_DOUBT = /^SQLITE_IOERR_(FSYNC|SHMSIZE|SHMMAP)$/;

/** The error an append's caller gets for the writer's answer. */
export function writerError(e: WriterError): Error {
  switch (e.kind) {
    case 'wrong_revision':
      return new WrongExpectedRevisionError(e.streamId, e.expected, e.actual);
    case 'idempotency':
      return new IdempotencyConflictError(e.streamId);
    default:
      if (e.code && IN_DOUBT.test(e.code)) return new StoreOutcomeUnknownError(`event store: ${e.message} (${e.code}); the write may be in the log or not`);
      return e.code && UNAVAILABLE.test(e.code) ? new StoreUnavailableError(`event store: ${e.message} (${e.code})`) : new Error(`event store: ${e.message}`);
  }
}

/**
 * The embedded event store: one SQLite file in WAL mode with `synchronous=FULL`. Appends are
 * written by the file's writer thread (sqlite/sqlite-writer.thread.ts), one transaction per
 * batch: the appends that arrive while a batch is on its way form the next one (group
 * commit), one batch is under way at a time, every append of a batch shares one fsync, and no
 * promise resolves before it. (With two under way the writer never waited for this thread,
 * but batches were half as large: twice the messages between the threads, whose wake-ups cost
 * this thread more than the writer's wait cost anyone.) Reads use this thread's own connection.
 */
export class SqliteEventStore implements EventStore {
  /** One server process per file: the embedded store is not shared between processes while it serves. */
  readonly exclusive = true;
  private head: number;
  private readonly db: SqliteDatabase;
  private readonly writer: SqliteWriter;
  private queue: PendingAppend[] = [];
  /** Whether a batch was sent and not yet answered. */
  private sending = false;
  private readonly listeners = new Set<() => void>();
  /** The events this process appended last, in log order: live subscribers take them from here, not from the file. */
  private recent: RecordedEvent[] = [];
  /** Every event after this position is in `recent` (the store is exclusive: all appends pass here). */
  private recentFloor: number;
  private readonly streamPage: Statement;
  private readonly allPages = new Map<string, Statement>();
  private readonly atPositions: Statement;
  private marks: Array<{ streamId: string; at: number; resolve(): void; reject(error: unknown): void }> = [];

  constructor(file: string) {
    // First: it locks the file for this process, or throws when another process holds it.
    this.writer = SqliteWriter.acquire(file);
    try {
      this.db = openDatabase(file, false);
      this.db.exec(EVENTS_SCHEMA);
      this.streamPage = this.db.prepare('SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?');
      this.atPositions = this.db.prepare('SELECT * FROM events WHERE position IN (SELECT value FROM json_each(?)) ORDER BY position');
      // The newest event still here: after a sweep deleted the newest ones, lower than positions
      // given before, which AUTOINCREMENT never gives again.
      this.head = (this.db.prepare('SELECT MAX(position) FROM events').pluck().get() as number | null) ?? 0;
    } catch (e) {
      void this.writer.release();
      throw e;
    }
    this.recentFloor = this.head;
  }

  async append(streamId: string, events: readonly EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    return (await this.appendTogether([{ streamId, events, expected }]))[0];
  }

  /** The appends go in one savepoint of the next batch's transaction. */
  appendTogether(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    if (appends.length === 0 || appends.some((a) => a.events.length === 0)) return Promise.reject(new Error('append needs at least one event'));
    let parts: PendingAppend['parts'];
    try {
      parts = appends.map(({ streamId, events, expected }, i) => {
        const wire: WriterAppend = { streamId, expected, events: events.map((e) => ({ id: e.id, type: e.type, data: JSON.stringify(e.data), metadata: JSON.stringify(e.metadata) })) };
        if (i > 0) wire.joined = true;
        return { events, wire };
      });
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ parts, resolve, reject });
      if (!this.sending) this.send();
    });
  }

  /** Sends the queued appends as one batch; the appends that arrive meanwhile form the next. */
  private send(): void {
    const batch = this.queue;
    const marks = this.marks;
    this.sending = true;
    this.queue = [];
    this.marks = [];
    const request = { type: 'append' as const, appends: batch.flatMap((p) => p.parts.map((part) => part.wire)), ...(marks.length ? { marks: marks.map(({ streamId, at }) => ({ streamId, at })) } : {}) };
    this.writer.request(request).then(
      (r) => {
        const outcomes = r.outcomes ?? [];
        // The marks were in the batch's transaction: committed unless the whole batch failed.
        const failed = outcomes.find((o): o is Extract<WriterOutcome, { ok: false }> => !o.ok && o.error.kind === 'failed');
        for (const m of marks) failed ? m.reject(writerError(failed.error)) : m.resolve();
        this.settle(batch, outcomes);
      },
      (error) => {
        for (const p of [...batch, ...marks]) p.reject(error);
        this.settle([], []);
      },
    );
  }

  private settle(batch: PendingAppend[], outcomes: WriterOutcome[]): void {
    this.sending = false;
    let appended = false;
    let next = 0;
    for (const p of batch) {
      const mine = outcomes.slice(next, (next += p.parts.length));
      const refused = mine.find((o): o is Extract<WriterOutcome, { ok: false }> => !o.ok);
      if (mine.length < p.parts.length) {
        p.reject(new Error('event store: the writer did not answer every append'));
        continue;
      }
      if (refused) {
        p.reject(writerError(refused.error));
        continue;
      }
      const results = (mine as Array<Extract<WriterOutcome, { ok: true }>>).map((o, i) => {
        if (!o.replayed) {
          appended = true;
          this.remember(p.parts[i], o.nextRevision, o.position);
        }
        this.head = Math.max(this.head, o.position);
        return { nextRevision: o.nextRevision, position: o.position };
      });
      p.resolve(results);
    }
    if (this.queue.length) this.send();
    else this.sendMarks();
    if (appended) for (const l of this.listeners) l();
  }

  /** Keeps an append's events as they were recorded (one append's positions are consecutive). */
  private remember(a: PendingAppend['parts'][number], lastRevision: number, lastPosition: number): void {
    const n = a.events.length;
    a.events.forEach((e, i) => {
      const back = n - 1 - i;
      this.recent.push({ id: e.id, streamId: a.wire.streamId, revision: lastRevision - back, position: lastPosition - back, type: e.type, data: e.data, metadata: e.metadata });
    });
    if (this.recent.length > RECENT_LIMIT) {
      const dropped = this.recent.splice(0, this.recent.length - RECENT_LIMIT / 2);
      this.recentFloor = dropped[dropped.length - 1].position;
    }
  }

  /** Up to `limit` events after `after` from memory, or undefined when memory does not reach back that far. */
  private recentAfter(after: number, limit: number, filter?: EventFilter): RecordedEvent[] | undefined {
    if (after < this.recentFloor) return undefined;
    const types = filter?.eventTypes;
    const prefixes = filter?.streamPrefixes;
    const all = !types?.length && !prefixes?.length;
    let lo = 0;
    let hi = this.recent.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.recent[mid].position <= after) lo = mid + 1;
      else hi = mid;
    }
    const page: RecordedEvent[] = [];
    for (let i = lo; i < this.recent.length && page.length < limit; i++) {
      const e = this.recent[i];
      if (all || types?.includes(e.type) || prefixes?.some((p) => e.streamId.startsWith(p))) page.push(e);
    }
    return page;
  }

  /**
   * Marks ride on the next append batch; those given while no batch is under way go on their
   * own after this turn of the event loop.
   */
  expireStream(streamId: string, at: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.marks.push({ streamId, at, resolve, reject });
      if (this.marks.length === 1) setImmediate(() => !this.sending && this.sendMarks());
    });
  }

  private sendMarks(): void {
    const marks = this.marks;
    this.marks = [];
    if (!marks.length) return;
    this.writer.request({ type: 'expire', marks: marks.map(({ streamId, at }) => ({ streamId, at })) }).then(
      (r) => marks.forEach((m) => (r.error ? m.reject(new Error(`event store: ${r.error}`)) : m.resolve())),
      (error) => marks.forEach((m) => m.reject(error)),
    );
  }

  async sweepExpired(now: number, limit: number): Promise<number> {
    // Marks asked for before this sweep reach the writer before it.
    this.sendMarks();
    const r = await this.writer.request({ type: 'sweep', now, limit });
    if (r.error) throw new Error(`event store: ${r.error}`);
    const swept = new Set(r.swept ?? []);
    if (swept.size) this.recent = this.recent.filter((e) => !swept.has(e.streamId));
    return swept.size;
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const rows = this.streamPage.all(streamId, options.fromRevision ?? 0, options.maxCount ?? -1) as Row[];
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.readAllSync(options.afterPosition ?? 0, options.maxCount ?? -1, options.filter);
  }

  async readPositions(positions: readonly number[]): Promise<RecordedEvent[]> {
    if (positions.length === 0) return [];
    return (this.atPositions.all(JSON.stringify(positions)) as Row[]).map(toRecorded);
  }

  private readAllSync(after: number, limit: number, filter?: EventFilter): RecordedEvent[] {
    const types = filter?.eventTypes ?? [];
    const prefixes = filter?.streamPrefixes ?? [];
    const key = `${types.length}:${prefixes.length}`;
    let stmt = this.allPages.get(key);
    if (!stmt) {
      const where = [
        ...(types.length ? [`type IN (${types.map(() => '?').join(',')})`] : []),
        ...prefixes.map(() => `substr(stream_id, 1, length(?)) = ?`),
      ];
      stmt = this.db.prepare(
        `SELECT * FROM events WHERE position > ? ${where.length ? `AND (${where.join(' OR ')})` : ''} ORDER BY position LIMIT ?`,
      );
      this.allPages.set(key, stmt);
    }
    const args = [after, ...types, ...prefixes.flatMap((p) => [p, p]), limit];
    return (stmt.all(...args) as Row[]).map(toRecorded);
  }

  subscribeToAll(options: { afterPosition?: number; filter?: EventFilter } = {}): Subscription {
    let last = options.afterPosition ?? 0;
    let closed = false;
    let wake: (() => void) | undefined;
    let dirty = true;
    const listener = () => {
      dirty = true;
      wake?.();
    };
    this.listeners.add(listener);
    const store = this;
    async function* iterate(): AsyncGenerator<RecordedEvent> {
      try {
        while (!closed) {
          if (!dirty) await new Promise<void>((r) => (wake = r));
          wake = undefined;
          if (closed) return;
          dirty = false;
          let page: RecordedEvent[];
          do {
            // Every event up to the head is in memory or readable now.
            const head = store.head;
            page = store.recentAfter(last, PAGE, options.filter) ?? store.readAllSync(last, PAGE, options.filter);
            for (const e of page) {
              last = e.position;
              yield e;
              if (closed) return;
            }
            // A short page read everything up to the head: a filter's next read starts there,
            // not at its last match, so events it passed over are not read again on every append.
            if (page.length < PAGE && head > last) last = head;
          } while (page.length === PAGE);
        }
      } finally {
        store.listeners.delete(listener);
      }
    }
    const it = iterate();
    return {
      [Symbol.asyncIterator]: () => it,
      close: async () => {
        closed = true;
        store.listeners.delete(listener);
        wake?.();
      },
    };
  }

  async headPosition(): Promise<number> {
    return this.head;
  }

  async close(): Promise<void> {
    while (this.sending || this.queue.length || this.marks.length) await new Promise((r) => setImmediate(r));
    await this.writer.release();
    this.db.close();
  }
}

function toRecorded(r: Row): RecordedEvent {
  return {
    id: r.event_id,
    streamId: r.stream_id,
    revision: r.revision,
    position: r.position,
    type: r.type,
    data: JSON.parse(r.data),
    metadata: JSON.parse(r.metadata),
  };
}

