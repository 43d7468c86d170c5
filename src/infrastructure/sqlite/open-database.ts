import type BetterSqlite3 from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

export type SqliteDatabase = BetterSqlite3.Database;

/**
 * Absolute path of the SQLite driver this runtime loads (the writer thread loads the same).
 * better-sqlite3 13 is built on Node-API 10 (Node 22.14 and later); 12 is the one that runs
 * on Node 20. Node 24.19 and later abort the process (`RemoveEnvironmentCleanupHook`,
 * `(env) != nullptr`) whenever a statement of 12, compiled against their headers, is
 * garbage-collected, so 13 is preferred wherever it loads.
 */
const load = createRequire(import.meta.url);
export const SQLITE_DRIVER: string = chooseDriver();
const Database: typeof BetterSqlite3 = load(SQLITE_DRIVER);

function chooseDriver(): string {
  if (Number(process.versions.napi) >= 10) {
    try {
      return load.resolve('better-sqlite3-napi');
    } catch {
      process.emitWarning('better-sqlite3-napi (better-sqlite3 13) is not installed; falling back to better-sqlite3 12, which Node 24.19 and later abort on', { code: 'SQLITE_DRIVER' });
    }
  }
  return load.resolve('better-sqlite3');
}

/**
 * Opens (creating if needed) the embedded store file in WAL mode. `durable` connections
 * fsync the WAL on every commit; read-model connections skip that, since a view can always
 * be rebuilt from the durable event log.
 */
export function openDatabase(file: string, durable: boolean): SqliteDatabase {
  const created = file !== ':memory:' && !existsSync(file);
  if (created) mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  // It holds password and secret hashes and the sealed signing keys: readable by its owner
  // only (SQLite gives the WAL and shared-memory files the same mode).
  if (created) chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${durable ? 'FULL' : 'NORMAL'}`);
  db.pragma('busy_timeout = 5000');
  // Checkpoint the WAL every ~40 MB rather than every 4 MB: each checkpoint rewrites scattered
  // pages of the main file and syncs it, which dominated the cost of durable appends.
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('cache_size = -65536');
  return db;
}
