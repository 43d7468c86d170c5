import type { Statement } from 'better-sqlite3';
import type { IndexSpec } from '../../../projections/projection.js';
import { openDatabase, type SqliteDatabase } from '../sqlite/open-database.js';
import { SqliteWriter } from '../sqlite/sqlite-writer.js';
import { LEASES_SCHEMA, VIEW_CHANGES_SCHEMA, VIEW_STATE_SCHEMA } from '../sqlite/sqlite-writer.thread.js';
import { LeaseLostError } from './lease.port.js';
import {
  type ChangeCursor,
  type CommitOptions,
  type DocumentWrite,
  type FindOptions,
  type ReadStore,
  type Scalar,
  type ViewChange,
  type ViewCommit,
  type ViewDocument,
  type ViewState,
  VIEW_CHANGES_KEEP_MS,
} from './read-store.port.js';

const VIEW_NAME = /^[a-z][a-z0-9_]*$/;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

function table(view: string): string {
  if (!VIEW_NAME.test(view)) throw new Error(`invalid view name: ${view}`);
  return `view_${view}`;
}

function field(name: string): string {
  if (name === '_id') return 'id';
  if (name === '_position') return 'position';
  if (!FIELD_NAME.test(name)) throw new Error(`invalid field name: ${name}`);
  return `json_extract(body, '$.${name}')`;
}

/**
 * The conditions of a range of `column`: values starting with `prefix`, after `after`. SQLite
 * seeks an index by one lower bound and filters by the others, so a cursor inside the prefix is
 * made the only lower bound: a deep page then starts at the cursor instead of walking the
 * prefix's range from its start.
 */
function range(where: string[], args: unknown[], column: string, prefix: string | undefined, after: string | undefined): void {
  const cursorInside = after !== undefined && (prefix === undefined || after.startsWith(prefix));
  if (prefix !== undefined && !cursorInside) {
    where.push(`${column} >= ?`);
    args.push(prefix);
  }
  if (after !== undefined) {
    where.push(`${column} > ?`);
    args.push(after);
  }
  if (prefix !== undefined) {
    where.push(`${column} < ?`);
    args.push(prefix + '\u{10FFFF}');
  }
}

/**
 * Read models in the embedded SQLite file: one table per view, documents as JSON, secondary
 * indexes as expression indexes. Reads use this thread's connection; commits go through the
 * file's writer thread, without fsync (views are rebuilt from the log).
 */
export class SqliteReadStore implements ReadStore {
  private readonly db: SqliteDatabase;
  private readonly statements = new Map<string, Statement>();
  private readonly writer: SqliteWriter;

  constructor(file: string) {
    // First: it locks the file for this process, or throws when another process holds it.
    this.writer = SqliteWriter.acquire(file);
    try {
      this.db = openDatabase(file, false);
      this.db.exec(VIEW_STATE_SCHEMA);
      this.db.exec(LEASES_SCHEMA);
      this.db.exec(VIEW_CHANGES_SCHEMA);
    } catch (e) {
      void this.writer.release();
      throw e;
    }
  }

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /**
   * A view no runner has prepared yet (a process that only reads views, started first) reads
   * as empty, as a missing collection does in MongoDB: its table is made, without a state, so
   * the runner's `prepareView` still sets it up in full.
   */
  private prepare(sql: string): Statement {
    try {
      return this.db.prepare(sql);
    } catch (e) {
      const missing = /^no such table: (view_[a-z][a-z0-9_]*)$/.exec((e as Error).message)?.[1];
      if (!missing) throw e;
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${missing} (id TEXT PRIMARY KEY, body TEXT NOT NULL, position INTEGER NOT NULL)`);
      return this.db.prepare(sql);
    }
  }

  async get<D>(view: string, id: string): Promise<ViewDocument<D> | null> {
    const row = this.stmt(`SELECT id, body, position FROM ${table(view)} WHERE id = ?`).get(id) as DocRow | undefined;
    return row ? toDoc<D>(row) : null;
  }

  async getMany<D>(view: string, ids: readonly string[]): Promise<Map<string, ViewDocument<D>>> {
    const rows = this.stmt(`SELECT v.id, v.body, v.position FROM json_each(?) AS j JOIN ${table(view)} AS v ON v.id = j.value ORDER BY j.key`).all(JSON.stringify(ids)) as DocRow[];
    return new Map(rows.map((r) => [r.id, toDoc<D>(r)]));
  }

  async find<D>(view: string, filter: Record<string, Scalar>, options: FindOptions = {}): Promise<ViewDocument<D>[]> {
    const keys = Object.keys(filter);
    const where = keys.map((k) => (filter[k] === null ? `${field(k)} IS NULL` : `${field(k)} = ?`));
    const args: unknown[] = keys.filter((k) => filter[k] !== null).map((k) => toSql(filter[k]));
    // Ranges of the primary key (ids compare as text, byte by byte: BINARY collation).
    if (options.idPrefix !== undefined || options.afterId !== undefined) range(where, args, 'id', options.idPrefix, options.afterId);
    if (options.fieldPrefix !== undefined) {
      const { field: name, prefix, after } = options.fieldPrefix;
      range(where, args, field(name), prefix, after);
    }
    const order = options.sortBy ? ` ORDER BY ${field(options.sortBy)} ${options.descending ? 'DESC' : 'ASC'}` : '';
    const sql = `SELECT id, body, position FROM ${table(view)}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}${order} LIMIT ?`;
    return (this.stmt(sql).all(...args, options.limit ?? -1) as DocRow[]).map((r) => toDoc<D>(r));
  }

  async commit(view: string, writes: readonly DocumentWrite[], checkpoint: number): Promise<void> {
    return this.commitAll([{ view, writes, checkpoint }]);
  }

  /** Written by the store's writer thread, so view commits never wait for an event append's lock. */
  async commitAll(commits: readonly ViewCommit[], options: CommitOptions = {}): Promise<void> {
    const { fence, log } = options;
    const response = await this.writer.request({
      type: 'views',
      commits: commits.map((c) => ({
        view: c.view,
        table: table(c.view),
        writes: c.writes.map((w) => ({ id: w.id, body: w.doc ? JSON.stringify(w.doc) : null, position: w.position })),
        checkpoint: c.checkpoint,
        ...(fence ? { fence } : {}),
        ...(log && c.writes.length && log.views.has(c.view)
          ? { log: { fence: log.fence, at: log.at, ids: JSON.stringify(c.writes.map((w) => w.id)), trimBefore: log.at - VIEW_CHANGES_KEEP_MS } }
          : {}),
      })),
    });
    if (response.error) throw new Error(`read store: ${response.error}`);
    // Commits of other callers may share the answer (see SqliteWriter): only this one's views count.
    if (fence && response.refused?.some((r) => r.lease === fence.lease && r.fence === fence.fence && commits.some((c) => c.view === r.view))) throw new LeaseLostError(fence.lease, fence.fence);
  }

  async changesAfter(after: ChangeCursor, limit: number): Promise<ViewChange[]> {
    const rows = this.stmt('SELECT fence, position, view, ids FROM view_changes WHERE (fence, position) > (?, ?) ORDER BY fence, position LIMIT ?').all(after.fence, after.position, limit) as Array<
      ChangeCursor & { view: string; ids: string }
    >;
    return rows.map((r) => ({ fence: r.fence, position: r.position, view: r.view, ids: JSON.parse(r.ids) as string[] }));
  }

  async lastChange(): Promise<ChangeCursor> {
    return (this.stmt('SELECT fence, position FROM view_changes ORDER BY fence DESC, position DESC LIMIT 1').get() as ChangeCursor | undefined) ?? { fence: 0, position: 0 };
  }

  async viewState(view: string): Promise<ViewState | null> {
    return (this.stmt('SELECT version, position FROM view_state WHERE view = ?').get(view) as ViewState | undefined) ?? null;
  }

  async prepareView(view: string, version: number, indexes: readonly IndexSpec[]): Promise<void> {
    const t = table(view);
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${t} (id TEXT PRIMARY KEY, body TEXT NOT NULL, position INTEGER NOT NULL)`);
    const current = await this.viewState(view);
    if (!current || current.version !== version) await this.resetView(view, version);
    const wanted = new Set<string>();
    for (const ix of indexes) {
      const name = `${t}__${ix.fields.join('__').replace(/\./g, '_')}${ix.sparse ? '__sparse' : ''}`;
      wanted.add(name);
      const where = ix.sparse ? ` WHERE ${field(ix.fields[ix.fields.length - 1])} IS NOT NULL` : '';
      this.db.exec(`CREATE ${ix.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${name} ON ${t} (${ix.fields.map(field).join(', ')})${where}`);
    }
    // An index the view no longer declares (its definition changed) is dropped, not kept up to date for nothing.
    const existing = this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name LIKE ? ESCAPE '!'").pluck().all(t, `${t.replace(/[!%_]/g, '!$&')}!_!_%`) as string[];
    for (const name of existing) if (!wanted.has(name)) this.db.exec(`DROP INDEX ${name}`);
  }

  async resetView(view: string, version: number): Promise<void> {
    const t = table(view);
    this.db.transaction(() => {
      this.db.prepare(`DELETE FROM ${t}`).run();
      this.stmt('INSERT INTO view_state (view, version, position) VALUES (?, ?, 0) ON CONFLICT (view) DO UPDATE SET version = excluded.version, position = 0').run(view, version);
    })();
  }

  async close(): Promise<void> {
    await this.writer.release();
    this.db.close();
  }
}

interface DocRow {
  id: string;
  body: string;
  position: number;
}

function toDoc<D>(r: DocRow): ViewDocument<D> {
  const doc = JSON.parse(r.body) as ViewDocument<D>;
  doc._id = r.id;
  doc._position = r.position;
  return doc;
}

function toSql(v: Scalar): string | number | null {
  return typeof v === 'boolean' ? (v ? 1 : 0) : v;
}
