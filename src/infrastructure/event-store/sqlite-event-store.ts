import type { Statement } from 'better-sqlite3';
import { openDatabase, type SqliteDatabase } from '../sqlite/open-database.js';
import {
  type AppendResult,
  checkExpectedRevision,
  type EventData,
  type EventFilter,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type Subscription,
} from './event-store.port.js';

interface PendingAppend {
  streamId: string;
  events: readonly EventData[];
  expected: ExpectedRevision;
  resolve(result: AppendResult): void;
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

/** Raised when event ids that were appended before are presented again in another shape. */
export class IdempotencyConflictError extends Error {
  constructor(streamId: string) {
    super(`stream ${streamId}: event ids were already appended with different content or stream`);
    this.name = 'IdempotencyConflictError';
  }
}

/**
 * The embedded event store: one SQLite file in WAL mode with `synchronous=FULL`.
 * Appends queue up and are written by one transaction per turn of the event loop (group
 * commit): every append in the batch shares one fsync, and no promise resolves before it.
 */
export class SqliteEventStore implements EventStore {
  /** One server process per file: the embedded store is not shared between processes while it serves. */
  readonly exclusive = true;
  private head: number;
  private readonly db: SqliteDatabase;
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
  private readonly listeners = new Set<() => void>();
  private readonly insert: Statement;
  private readonly lastRevision: Statement;
  private readonly idsFrom: Statement;
  private readonly streamPage: Statement;
  private readonly allPages = new Map<string, Statement>();

  constructor(file: string) {
    this.db = openDatabase(file, true);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id TEXT NOT NULL,
        stream_id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        UNIQUE (stream_id, revision)
      );
      CREATE INDEX IF NOT EXISTS events_type ON events (type, position);`);
    this.insert = this.db.prepare(
      'INSERT INTO events (event_id, stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.lastRevision = this.db.prepare('SELECT MAX(revision) AS r FROM events WHERE stream_id = ?').pluck();
    this.idsFrom = this.db.prepare('SELECT event_id, revision, position FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?');
    this.streamPage = this.db.prepare(
      'SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?',
    );
    this.head = (this.db.prepare('SELECT MAX(position) FROM events').pluck().get() as number | null) ?? 0;
  }

  append(streamId: string, events: readonly EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    return new Promise((resolve, reject) => {
      this.queue.push({ streamId, events, expected, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private readonly appendOne = (p: PendingAppend): AppendResult => {
    const current = (this.lastRevision.get(p.streamId) as number | null) ?? -1;
    const replay = this.previousAppend(p, current);
    if (replay) return replay;
    checkExpectedRevision(p.streamId, p.expected, current);
    let revision = current;
    let position = 0;
    for (const e of p.events) {
      revision += 1;
      const info = this.insert.run(e.id, p.streamId, revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata));
      position = Number(info.lastInsertRowid);
    }
    return { nextRevision: revision, position };
  };

  /**
   * Idempotent appends, as EventStoreDB does them: when the events just after the expected
   * revision (or, for `any` and `stream_exists`, the last ones) carry the same ids, the
   * append already happened and its result is returned. Checked within the stream only, so
   * no log-wide index on event ids slows every write.
   */
  private previousAppend(p: PendingAppend, current: number): AppendResult | undefined {
    const n = p.events.length;
    const from = typeof p.expected === 'number' ? p.expected + 1 : p.expected === 'no_stream' ? 0 : current - n + 1;
    if (current < 0 || from < 0 || from > current) return undefined;
    const rows = this.idsFrom.all(p.streamId, from, n) as Array<{ event_id: string; revision: number; position: number }>;
    const same = rows.filter((r, i) => r.event_id === p.events[i].id).length;
    if (same === 0) return undefined;
    if (same < n) throw new IdempotencyConflictError(p.streamId);
    const last = rows[n - 1];
    return { nextRevision: last.revision, position: last.position };
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    const outcomes: Array<{ ok: true; value: AppendResult } | { ok: false; error: unknown }> = [];
    const one = this.db.transaction(this.appendOne);
    try {
      this.db
        .transaction(() => {
          for (const p of batch) {
            try {
              outcomes.push({ ok: true, value: one(p) });
            } catch (error) {
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, i) => {
      const o = outcomes[i];
      if (o.ok) {
        this.head = Math.max(this.head, o.value.position);
        p.resolve(o.value);
      } else p.reject(o.error);
    });
    if (outcomes.some((o) => o.ok)) for (const l of this.listeners) l();
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const rows = this.streamPage.all(streamId, options.fromRevision ?? 0, options.maxCount ?? -1) as Row[];
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.readAllSync(options.afterPosition ?? 0, options.maxCount ?? -1, options.filter);
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
            page = store.readAllSync(last, PAGE, options.filter);
            for (const e of page) {
              last = e.position;
              yield e;
              if (closed) return;
            }
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
    if (this.queue.length) this.flush();
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

