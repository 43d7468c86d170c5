import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type SqliteDatabase = Database.Database;

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
