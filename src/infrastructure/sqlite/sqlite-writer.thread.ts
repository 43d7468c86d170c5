/**
 * The embedded store's one write connection, on its own thread: event appends (durable,
 * fsync on commit) and view commits (no fsync; views are rebuilt from the log) never block
 * the request thread, and never wait for each other's locks. `writerThread` is sent to the
 * worker as source text (so it runs the same from `dist/` and under the test runner): it
 * must stay self-contained, using only `require` and the worker's data.
 */

export const EVENTS_SCHEMA = `
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
  CREATE INDEX IF NOT EXISTS events_type ON events (type, position);
  CREATE TABLE IF NOT EXISTS stream_expiry (stream_id TEXT PRIMARY KEY, expires INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS stream_expiry_expires ON stream_expiry (expires);`;

export const VIEW_STATE_SCHEMA = 'CREATE TABLE IF NOT EXISTS view_state (view TEXT PRIMARY KEY, version INTEGER NOT NULL, position INTEGER NOT NULL)';

/** The change log of cached views (see ReadStore.changesAfter): ids as a JSON array, `at` in epoch ms. */
export const VIEW_CHANGES_SCHEMA = `
  CREATE TABLE IF NOT EXISTS view_changes (fence INTEGER NOT NULL, position INTEGER NOT NULL, at INTEGER NOT NULL, view TEXT NOT NULL, ids TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS view_changes_order ON view_changes (fence, position);
  CREATE INDEX IF NOT EXISTS view_changes_at ON view_changes (at)`;

/** Attempt counters (see AttemptCounters): times in epoch milliseconds; the index finds the expired ones to sweep. */
export const COUNTERS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS attempt_counters (key TEXT PRIMARY KEY, count INTEGER NOT NULL, last INTEGER NOT NULL, expires INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS attempt_counters_expires ON attempt_counters (expires)`;

/** Leases (see Leases): times in epoch milliseconds on the callers' clock; a released lease expires at 0. */
export const LEASES_SCHEMA = 'CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, owner TEXT NOT NULL, fence INTEGER NOT NULL, expires INTEGER NOT NULL)';

/** A lease to take (or renew) or to let go, as it crosses to the writer. */
export interface WriterLease {
  op: 'acquire' | 'release';
  name: string;
  owner: string;
  ttlMs: number;
  now: number;
}

/** Counter hits and clears, as they cross to the writer. */
export interface WriterCounters {
  now: number;
  hits: ReadonlyArray<{ key: string; ttlMs: number; sliding: boolean }>;
  clears: readonly string[];
}

/** One append as it crosses to the writer; data and metadata as JSON text (a string crosses threads far cheaper than an object graph). */
export interface WriterAppend {
  streamId: string;
  events: ReadonlyArray<{ id: string; type: string; data: string; metadata: string }>;
  expected: 'any' | 'no_stream' | 'stream_exists' | number;
  /** Commits with the append before it in the request, or neither does (EventStore.appendTogether). */
  joined?: true;
}

export type WriterError =
  | { kind: 'wrong_revision'; streamId: string; expected: WriterAppend['expected']; actual: number | 'no_stream' }
  | { kind: 'idempotency'; streamId: string }
  /** `code`: SQLite's (extended) result code, e.g. `SQLITE_FULL`, when SQLite raised the error. */
  | { kind: 'failed'; message: string; code?: string };

/** `replayed`: the append had already happened (idempotent), so nothing new was written. */
export type WriterOutcome = { ok: true; nextRevision: number; position: number; replayed?: true } | { ok: false; error: WriterError };

/** The writes of one view table (documents as JSON text, null to delete) and the checkpoint they reach. */
export interface WriterViewCommit {
  view: string;
  table: string;
  writes: ReadonlyArray<{ id: string; body: string | null; position: number }>;
  checkpoint: number;
  /** Skip this commit (and answer it as refused) unless the lease still has this fence. */
  fence?: { lease: string; fence: number };
  /** Record the ids written in the change log (a JSON array), dropping entries older than `trimBefore`. */
  log?: { fence: number; at: number; ids: string; trimBefore: number };
}

/** A stream disposable from `at` (epoch ms); a later mark of a stream replaces an earlier one. */
export interface WriterMark {
  streamId: string;
  at: number;
}

/** Main thread to writer: appends to commit in one transaction, view commits likewise, or the order to stop. */
export type WriterRequest =
  /** `views`: view commits that rode on the batch, committed after it and answered under their own id. */
  | { id: number; type: 'append'; appends: WriterAppend[]; views?: { id: number; commits: WriterViewCommit[] }; marks?: WriterMark[] }
  | { id: number; type: 'views'; commits: WriterViewCommit[] }
  | ({ id: number; type: 'counters' } & WriterCounters)
  | ({ id: number; type: 'lease' } & WriterLease)
  /** Expiry marks that found no append batch to ride on. */
  | { id: number; type: 'expire'; marks: readonly WriterMark[] }
  /** Deletes the events of up to `limit` streams disposable at `now`; answered with the streams' ids in `swept`. */
  | { id: number; type: 'sweep'; now: number; limit: number }
  | { id: number; type: 'close' };

/** Writer to main thread: the answer to request `id`. */
export type WriterResponse = {
  id: number;
  outcomes?: WriterOutcome[];
  swept?: string[];
  /** The commits refused for a moved fence, each with the fence it was made under (commits of several callers may share one answer). */
  refused?: Array<{ view: string; lease: string; fence: number }>;
  /** The lease an `acquire` took, or null when another owner holds it live. */
  lease?: { owner: string; fence: number; expires: number } | null;
  error?: string;
};

export interface WriterData {
  file: string;
  /** DDL of every table the writer prepares statements for (idempotent). */
  schema: string;
  /** Absolute path of the SQLite driver the main thread loads (`SQLITE_DRIVER`). */
  driver: string;
}

export function writerThread(): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { parentPort, workerData } = require('node:worker_threads');
  const Database = require(workerData.driver);
  const db = new Database(workerData.file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('cache_size = -65536');
  db.exec(workerData.schema);
  // This thread starts when its process has just locked the file: whoever held a lease in it
  // was another process, now gone. Its leases are free at once (their fences stay).
  db.exec('UPDATE leases SET expires = 0');
  const insert = db.prepare('INSERT INTO events (event_id, stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)');
  const lastRevision = db.prepare('SELECT MAX(revision) FROM events WHERE stream_id = ?').pluck();
  const idsFrom = db.prepare('SELECT event_id, revision, position FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?');

  const refuse = (error: WriterError) => ({ refusal: error });

  // The head (last revision, last event's id and position) of the streams appended to lately,
  // so that an append reads nothing of its stream: this thread is the file's only writer. A
  // batch keeps the heads it moves apart until it has committed; a batch that fails forgets
  // them all, and the next appends read their heads from the file again.
  interface Head {
    revision: number;
    /** The last event, once this thread has appended to the stream. */
    last?: { id: string; position: number };
  }
  const HEADS_KEPT = 50_000;
  const heads = new Map<string, Head>();
  let moved = new Map<string, Head>();
  const headOf = (streamId: string): Head => moved.get(streamId) ?? heads.get(streamId) ?? { revision: lastRevision.get(streamId) ?? -1 };
  function keepMoved(): void {
    for (const [streamId, head] of moved) {
      heads.delete(streamId);
      heads.set(streamId, head);
      if (heads.size > HEADS_KEPT) heads.delete(heads.keys().next().value!);
    }
  }

  // Idempotent appends, as EventStoreDB does them: when the events just after the expected
  // revision (or, for `any` and `stream_exists`, the last ones) carry the same ids, the append
  // already happened. Checked within the stream, so no log-wide index on ids slows writes.
  function previous(a: WriterAppend, head: Head): WriterOutcome | undefined {
    const current = head.revision;
    const n = a.events.length;
    const from = typeof a.expected === 'number' ? a.expected + 1 : a.expected === 'no_stream' ? 0 : current - n + 1;
    if (current < 0 || from < 0 || from > current) return undefined;
    // One event against the stream's last, whose id is known: nothing to read.
    if (n === 1 && from === current && head.last) {
      return a.events[0].id === head.last.id ? { ok: true, nextRevision: current, position: head.last.position, replayed: true } : undefined;
    }
    const rows = idsFrom.all(a.streamId, from, n) as Array<{ event_id: string; revision: number; position: number }>;
    const same = rows.filter((r, i) => r.event_id === a.events[i].id).length;
    if (same === 0) return undefined;
    if (same < n) throw refuse({ kind: 'idempotency', streamId: a.streamId });
    return { ok: true, nextRevision: rows[n - 1].revision, position: rows[n - 1].position, replayed: true };
  }

  const appendOne = db.transaction((a: WriterAppend): WriterOutcome => {
    const head = headOf(a.streamId);
    const current = head.revision;
    const replay = previous(a, head);
    if (replay) return replay;
    const e = a.expected;
    const ok = e === 'any' || (e === 'no_stream' && current === -1) || (e === 'stream_exists' && current >= 0) || e === current;
    if (!ok) throw refuse({ kind: 'wrong_revision', streamId: a.streamId, expected: e, actual: current === -1 ? 'no_stream' : current });
    let revision = current;
    let position = 0;
    for (const ev of a.events) {
      revision += 1;
      position = Number(insert.run(ev.id, a.streamId, revision, ev.type, ev.data, ev.metadata).lastInsertRowid);
    }
    moved.set(a.streamId, { revision, last: { id: a.events[a.events.length - 1].id, position } });
    return { ok: true, nextRevision: revision, position };
  });

  const markExpiry = db.prepare('INSERT INTO stream_expiry (stream_id, expires) VALUES (?, ?) ON CONFLICT (stream_id) DO UPDATE SET expires = excluded.expires');
  const writeMarks = (marks: readonly WriterMark[]) => {
    for (const m of marks) markExpiry.run(m.streamId, m.at);
  };

  // Appends joined together share a savepoint: a refusal of one undoes the others, and the
  // heads they moved are put back.
  const appendJoined = db.transaction((group: WriterAppend[]): WriterOutcome[] => group.map((a) => appendOne(a)));
  function appendGroup(group: WriterAppend[]): WriterOutcome[] {
    if (group.length === 1) return [appendOne(group[0])];
    const before = group.map((a) => [a.streamId, moved.get(a.streamId)] as const);
    try {
      return appendJoined(group);
    } catch (e) {
      for (const [streamId, head] of before.reverse()) {
        if (head) moved.set(streamId, head);
        else moved.delete(streamId);
      }
      throw e;
    }
  }

  // Expiry marks ride on the batch: no transaction of their own.
  const appendAll = db.transaction((appends: WriterAppend[], marks: readonly WriterMark[] = []): WriterOutcome[] => {
    writeMarks(marks);
    const outcomes: WriterOutcome[] = [];
    for (let i = 0; i < appends.length; ) {
      let end = i + 1;
      while (appends[end]?.joined) end++;
      const group = appends.slice(i, end);
      i = end;
      try {
        outcomes.push(...appendGroup(group));
      } catch (e) {
        // A refusal concerns this append (or group) alone. Anything else (a full disk, an I/O
        // error) fails the whole batch: SQLite may have rolled the transaction back already, and
        // an append run after that would commit on its own while its caller is told it failed.
        const refusal = (e as { refusal?: WriterError }).refusal;
        if (!refusal) throw e;
        group.forEach(() => outcomes.push({ ok: false, error: refusal }));
      }
    }
    return outcomes;
  });

  const viewStatements = new Map<string, { upsert: any; remove: any }>();
  const moveCheckpoint = db.prepare('UPDATE view_state SET position = ? WHERE view = ? AND position < ?');
  function statementsOf(table: string) {
    let s = viewStatements.get(table);
    if (!s) {
      s = {
        upsert: db.prepare(`INSERT INTO ${table} (id, body, position) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body, position = excluded.position`),
        remove: db.prepare(`DELETE FROM ${table} WHERE id = ?`),
      };
      viewStatements.set(table, s);
    }
    return s;
  }
  // A fenced commit is checked against its lease in the same transaction as its writes, so a
  // holder replaced a moment ago cannot write after its successor has started.
  const leaseFence = db.prepare('SELECT fence FROM leases WHERE name = ?').pluck();
  const logChange = db.prepare('INSERT INTO view_changes (fence, position, at, view, ids) VALUES (?, ?, ?, ?, ?)');
  const trimChanges = db.prepare('DELETE FROM view_changes WHERE rowid IN (SELECT rowid FROM view_changes WHERE at < ? LIMIT 100)');
  const commitViews = db.transaction((commits: WriterViewCommit[]): NonNullable<WriterResponse['refused']> => {
    const refused: NonNullable<WriterResponse['refused']> = [];
    let trimBefore: number | undefined;
    for (const c of commits) {
      if (c.fence && leaseFence.get(c.fence.lease) !== c.fence.fence) {
        refused.push({ view: c.view, ...c.fence });
        continue;
      }
      const { upsert, remove } = statementsOf(c.table);
      for (const w of c.writes) {
        if (w.body !== null) upsert.run(w.id, w.body, w.position);
        else remove.run(w.id);
      }
      moveCheckpoint.run(c.checkpoint, c.view, c.checkpoint);
      if (c.log) {
        logChange.run(c.log.fence, c.checkpoint, c.log.at, c.view, c.log.ids);
        trimBefore = c.log.trimBefore;
      }
    }
    if (trimBefore !== undefined) trimChanges.run(trimBefore);
    return refused;
  });

  const relaxed = db.prepare('PRAGMA synchronous = NORMAL');
  const full = db.prepare('PRAGMA synchronous = FULL');
  function commitViewsAndReply(id: number, commits: WriterViewCommit[]): void {
    // Views need no fsync: after a crash they resume from their checkpoint, or are rebuilt.
    relaxed.run();
    try {
      const refused = commitViews.immediate(commits);
      parentPort.postMessage(refused.length ? { id, refused } : { id });
    } catch (e) {
      parentPort.postMessage({ id, error: String((e as Error)?.message ?? e) });
    } finally {
      full.run();
    }
  }

  // A hit adds one, or starts again from one once the counter has expired; a window keeps its
  // expiry, a sliding counter moves it. Each hit also deletes a few expired counters, so
  // the table holds little more than the live ones without a sweep of its own.
  const hitCounter = db.prepare(`INSERT INTO attempt_counters (key, count, last, expires) VALUES (@key, 1, @now, @now + @ttl)
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN expires <= @now THEN 1 ELSE count + 1 END,
      expires = CASE WHEN expires <= @now OR @sliding THEN @now + @ttl ELSE expires END,
      last = @now`);
  const clearCounter = db.prepare('DELETE FROM attempt_counters WHERE key = ?');
  const sweepCounters = db.prepare('DELETE FROM attempt_counters WHERE key IN (SELECT key FROM attempt_counters WHERE expires <= ? LIMIT 100)');
  const writeCounters = db.transaction((c: WriterCounters) => {
    for (const h of c.hits) hitCounter.run({ key: h.key, now: c.now, ttl: h.ttlMs, sliding: h.sliding ? 1 : 0 });
    for (const key of c.clears) clearCounter.run(key);
    if (c.hits.length) sweepCounters.run(c.now);
  });

  // A lease passes to a new holder when it is free or expired, with the next fence; its
  // holder renews it, keeping the fence.
  const leaseRow = db.prepare('SELECT owner, fence, expires FROM leases WHERE name = ?');
  const putLease = db.prepare('INSERT INTO leases (name, owner, fence, expires) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, fence = excluded.fence, expires = excluded.expires');
  const releaseLease = db.prepare('UPDATE leases SET expires = 0 WHERE name = ? AND owner = ?');
  const takeLease = db.transaction((l: WriterLease) => {
    const row = leaseRow.get(l.name) as { owner: string; fence: number; expires: number } | undefined;
    const live = row !== undefined && row.expires > l.now;
    if (live && row.owner !== l.owner) return null;
    const fence = live ? row.fence : (row?.fence ?? 0) + 1;
    putLease.run(l.name, l.owner, fence, l.now + l.ttlMs);
    return { owner: l.owner, fence, expires: l.now + l.ttlMs };
  });

  // Expired streams: their events go, their positions are never given again (AUTOINCREMENT),
  // and their heads are forgotten, so the stream reads as absent, to this thread as to readers.
  const dueStreams = db.prepare('SELECT stream_id FROM stream_expiry WHERE expires <= ? ORDER BY expires LIMIT ?').pluck();
  const deleteStream = db.prepare('DELETE FROM events WHERE stream_id = ?');
  const deleteExpiry = db.prepare('DELETE FROM stream_expiry WHERE stream_id = ?');
  const writeMarksAlone = db.transaction(writeMarks);
  const sweep = db.transaction((now: number, limit: number): string[] => {
    const due = dueStreams.all(now, limit) as string[];
    for (const streamId of due) {
      deleteStream.run(streamId);
      deleteExpiry.run(streamId);
    }
    return due;
  });

  parentPort.on('message', (request: WriterRequest) => {
    const reply = (r: Omit<WriterResponse, 'id'>) => parentPort.postMessage({ id: request.id, ...r });
    switch (request.type) {
      case 'close':
        db.close();
        reply({});
        parentPort.close();
        return;
      case 'append': {
        let outcomes: WriterOutcome[];
        moved = new Map();
        try {
          outcomes = appendAll.immediate(request.appends, request.marks);
          keepMoved();
        } catch (e) {
          heads.clear();
          const code = (e as { code?: unknown })?.code;
          const error: WriterError = { kind: 'failed', message: String((e as Error)?.message ?? e), ...(typeof code === 'string' ? { code } : {}) };
          outcomes = request.appends.map(() => ({ ok: false, error }));
        }
        reply({ outcomes });
        if (request.views) commitViewsAndReply(request.views.id, request.views.commits);
        return;
      }
      case 'views':
        commitViewsAndReply(request.id, request.commits);
        return;
      case 'expire':
      case 'sweep':
        // Losing the last marks or deletions to a crash only leaves streams to a later sweep.
        relaxed.run();
        try {
          if (request.type === 'expire') {
            writeMarksAlone.immediate(request.marks);
            reply({});
          } else {
            const swept = sweep.immediate(request.now, request.limit);
            for (const streamId of swept) heads.delete(streamId);
            reply({ swept });
          }
        } catch (e) {
          reply({ error: String((e as Error)?.message ?? e) });
        } finally {
          full.run();
        }
        return;
      case 'lease':
        try {
          if (request.op === 'acquire') reply({ lease: takeLease.immediate(request) });
          else {
            releaseLease.run(request.name, request.owner);
            reply({});
          }
        } catch (e) {
          reply({ error: String((e as Error)?.message ?? e) });
        }
        return;
      case 'counters':
        // Like views, counters need no fsync: losing the last few to a crash costs little.
        relaxed.run();
        try {
          writeCounters.immediate(request);
          reply({});
        } catch (e) {
          reply({ error: String((e as Error)?.message ?? e) });
        } finally {
          full.run();
        }
        return;
    }
  });
}

/**
 * Copies committed WAL frames into the main file every `everyMs`, from a connection of its
 * own (a passive checkpoint, which never blocks the writer). The writer's own checkpoint,
 * after it has written `wal_autocheckpoint` frames, then finds little left to copy and lets
 * the WAL start over; without this thread that checkpoint copied everything itself and held
 * up every append behind it for tens of milliseconds.
 */
export function checkpointerThread(): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { parentPort, workerData } = require('node:worker_threads');
  const Database = require(workerData.driver);
  const db = new Database(workerData.file);
  const timer = setInterval(() => {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy or failed: the next round tries again, and the writer's own checkpoint is the backstop.
    }
  }, workerData.everyMs);
  parentPort.once('message', () => {
    clearInterval(timer);
    db.close();
    parentPort.close();
  });
}
