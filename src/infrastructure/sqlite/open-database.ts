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
      const path = load.resolve('better-sqlite3-napi');
      // 13 loads its prebuilt binary on first use (x64 and arm64, glibc 2.34 or later, or musl): try it now.
      new (load(path) as typeof BetterSqlite3)(':memory:').close();
      return path;
    } catch (e) {
      process.emitWarning(`better-sqlite3 13 (better-sqlite3-napi) does not load here (${String(e)}); falling back to better-sqlite3 12, which Node 24.19 and later abort on`, { code: 'SQLITE_DRIVER' });
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
  return naming(file, () => {
    const db = openOwnerOnly(file);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${durable ? 'FULL' : 'NORMAL'}`);
    db.pragma('busy_timeout = 5000');
    // Checkpoint the WAL every ~40 MB rather than every 4 MB: each checkpoint rewrites scattered
    // pages of the main file and syncs it, which dominated the cost of durable appends.
    db.pragma('wal_autocheckpoint = 10000');
    db.pragma('cache_size = -65536');
    return db;
  });
}

/** Runs `open`; an error it throws names `file`. */
function naming<T>(file: string, open: () => T): T {
  try {
    return open();
  } catch (e) {
    throw named(file, e);
  }
}

/** The error, its message led by `file` if it does not name it (SQLite's own, such as "attempt to write a readonly database", do not). */
function named(file: string, e: unknown): unknown {
  // Duck-typed: the driver's errors may come from another realm (one per test file under jest).
  const error = e as { message?: unknown };
  if (typeof error?.message === 'string' && !error.message.includes(file)) error.message = `${file}: ${error.message}`;
  return e;
}

/**
 * Opens `file`, creating it (and its directory) when missing. The store holds password and
 * secret hashes and the sealed signing keys: a file created here is readable by its owner only
 * (SQLite gives its WAL, shared-memory and journal files the same mode).
 */
function openOwnerOnly(file: string): SqliteDatabase {
  const created = file !== ':memory:' && !existsSync(file);
  if (created) mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  if (created) chmodSync(file, 0o600);
  return db;
}

/**
 * Locks the store file for this process until the returned function is called (the file's
 * SqliteWriter holds it): the embedded store keeps in memory what it appended and assumes
 * nobody else appends, so a second server process on the same file would serve stale views
 * (a second call in this process is refused too). The lock is
 * SQLite's own exclusive lock on a small file beside the store; it is a POSIX lock, which the
 * kernel lets go however the process ends (`kill -9` included). Keep the returned function:
 * it holds the lock's connection, which closes (lock and all) once garbage-collected.
 */
export function lockStoreFile(file: string): () => void {
  const path = `${file}.lock`;
  const lock = naming(path, () => openOwnerOnly(path));
  try {
    lock.pragma('busy_timeout = 0');
    lock.pragma('journal_mode = OFF');
    lock.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the exclusive lock, and this locking mode keeps it until close.
    lock.pragma('user_version = 1');
  } catch (e) {
    lock.close();
    if ((e as { code?: string }).code === 'SQLITE_BUSY') throw new Error(`${file} is in use by another server process (one process serves an embedded store at a time)`);
    throw named(path, e);
  }
  return () => lock.close();
}
