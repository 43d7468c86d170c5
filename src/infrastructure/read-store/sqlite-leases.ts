import type { Statement } from 'better-sqlite3';
import { openDatabase, type SqliteDatabase } from '../sqlite/open-database.js';
import { SqliteWriter } from '../sqlite/sqlite-writer.js';
import { LEASES_SCHEMA } from '../sqlite/sqlite-writer.thread.js';
import type { LeaseGrant, Leases } from './lease.port.js';

/**
 * Leases in the embedded SQLite file (table `leases`): taken and let go by the file's writer
 * thread, in one transaction each, read on this thread's connection. The file serves one
 * process, so here they order the runners and workers of that process; the fence they give
 * is checked by the view commits of the same file.
 */
export class SqliteLeases implements Leases {
  private readonly db: SqliteDatabase;
  private readonly writer: SqliteWriter;
  private readonly select: Statement;

  constructor(file: string) {
    this.writer = SqliteWriter.acquire(file);
    try {
      this.db = openDatabase(file, false);
      this.db.exec(LEASES_SCHEMA);
      this.select = this.db.prepare('SELECT owner, fence, expires FROM leases WHERE name = ?');
    } catch (e) {
      void this.writer.release();
      throw e;
    }
  }

  async acquire(name: string, owner: string, ttlMs: number, now: number): Promise<LeaseGrant | null> {
    const response = await this.writer.request({ type: 'lease', op: 'acquire', name, owner, ttlMs, now });
    if (response.error) throw new Error(`leases: ${response.error}`);
    return response.lease ? { name, owner: response.lease.owner, fence: response.lease.fence, expiresAt: response.lease.expires } : null;
  }

  async release(name: string, owner: string): Promise<void> {
    const response = await this.writer.request({ type: 'lease', op: 'release', name, owner, ttlMs: 0, now: 0 });
    if (response.error) throw new Error(`leases: ${response.error}`);
  }

  async read(name: string): Promise<LeaseGrant | null> {
    const row = this.select.get(name) as { owner: string; fence: number; expires: number } | undefined;
    return row ? { name, owner: row.owner, fence: row.fence, expiresAt: row.expires } : null;
  }

  async close(): Promise<void> {
    await this.writer.release();
    this.db.close();
  }
}
