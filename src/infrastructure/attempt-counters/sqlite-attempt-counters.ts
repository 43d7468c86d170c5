import type { Statement } from 'better-sqlite3';
import { openDatabase, type SqliteDatabase } from '../sqlite/open-database.js';
import { SqliteWriter } from '../sqlite/sqlite-writer.js';
import { COUNTERS_SCHEMA } from '../sqlite/sqlite-writer.thread.js';
import type { AttemptCounters, Counter, CounterHit } from './attempt-counters.port.js';

/**
 * Attempt counters in the embedded SQLite file (table `attempt_counters`), on disk rather than
 * in memory: reads on this thread's connection, writes through the file's writer thread (one
 * request per attempt, whatever the number of counters it moves). Expired rows are deleted a
 * few at a time by the writes that follow.
 */
export class SqliteAttemptCounters implements AttemptCounters {
  private readonly db: SqliteDatabase;
  private readonly writer: SqliteWriter;
  private readonly select: Statement;

  constructor(file: string) {
    this.writer = SqliteWriter.acquire(file);
    try {
      this.db = openDatabase(file, false);
      this.db.exec(COUNTERS_SCHEMA);
      this.select = this.db.prepare('SELECT c.key, c.count, c.last, c.expires FROM json_each(?) AS j JOIN attempt_counters AS c ON c.key = j.value WHERE c.expires > ?');
    } catch (e) {
      void this.writer.release();
      throw e;
    }
  }

  async read(keys: readonly string[], now: number): Promise<Map<string, Counter>> {
    const rows = this.select.all(JSON.stringify(keys), now) as Array<Counter & { key: string }>;
    return new Map(rows.map(({ key, ...c }) => [key, c]));
  }

  async hit(hits: readonly CounterHit[], now: number): Promise<void> {
    await this.write({ now, hits, clears: [] });
  }

  async clear(keys: readonly string[]): Promise<void> {
    await this.write({ now: 0, hits: [], clears: keys });
  }

  private async write(request: { now: number; hits: readonly CounterHit[]; clears: readonly string[] }): Promise<void> {
    const response = await this.writer.request({ type: 'counters', ...request });
    if (response.error) throw new Error(`attempt counters: ${response.error}`);
  }

  async close(): Promise<void> {
    await this.writer.release();
    this.db.close();
  }
}
