/**
 * The AttemptCounters port's contract, run against the embedded SQLite adapter (always) and the
 * MongoDB adapter (when MONGODB_URL is set or a container runtime can start one).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { AttemptCounters } from '../../src/infrastructure/attempt-counters/attempt-counters.port.js';
import { MongoAttemptCounters } from '../../src/infrastructure/attempt-counters/mongo-attempt-counters.js';
import { SqliteAttemptCounters } from '../../src/infrastructure/attempt-counters/sqlite-attempt-counters.js';
import { SqliteReadStore } from '../../src/infrastructure/read-store/sqlite-read-store.js';
import { openDatabase } from '../../src/infrastructure/sqlite/open-database.js';
import { externalMongo, type ExternalServer, mongoAvailability } from '../support/external-servers.js';
import { tempDir } from '../support/temp-dir.js';

interface Harness {
  /** A fresh store; `reopen` gives another instance over the same storage (a restart, or a second server). */
  open(): Promise<{ store: AttemptCounters; reopen(): AttemptCounters; dispose(): Promise<void> }>;
}

const HOUR = 3600_000;
const T0 = 1_700_000_000_000;

function attemptCountersContract(harness: Harness): void {
  let store: AttemptCounters;
  let reopen: () => AttemptCounters;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    ({ store, reopen, dispose } = await harness.open());
  });
  afterEach(async () => {
    await dispose();
  });

  it('reads nothing for keys never hit', async () => {
    expect((await store.read(['a', 'b'], T0)).size).toBe(0);
  });

  it('counts hits per key, with the time of the last, in one call for several keys', async () => {
    await store.hit([{ key: 'a', ttlMs: HOUR, sliding: true }, { key: 'b', ttlMs: HOUR, sliding: false }], T0);
    await store.hit([{ key: 'a', ttlMs: HOUR, sliding: true }], T0 + 10);
    const read = await store.read(['a', 'b', 'c'], T0 + 20);
    expect(read.get('a')).toEqual({ count: 2, last: T0 + 10, expires: T0 + 10 + HOUR });
    expect(read.get('b')).toEqual({ count: 1, last: T0, expires: T0 + HOUR });
    expect(read.has('c')).toBe(false);
  });

  it('counts parallel hits on one key exactly (each hit is atomic)', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.hit([{ key: 'tenant', ttlMs: HOUR, sliding: false }], T0 + i)));
    expect((await store.read(['tenant'], T0 + 100)).get('tenant')?.count).toBe(20);
  });

  it('a window keeps the expiry its first hit set, and starts again from one once it has passed', async () => {
    const hit = (at: number) => store.hit([{ key: 'w', ttlMs: 1000, sliding: false }], at);
    await hit(T0);
    await hit(T0 + 600);
    expect((await store.read(['w'], T0 + 999)).get('w')).toEqual({ count: 2, last: T0 + 600, expires: T0 + 1000 });
    expect((await store.read(['w'], T0 + 1000)).has('w')).toBe(false);
    await hit(T0 + 1200);
    expect((await store.read(['w'], T0 + 1200)).get('w')).toEqual({ count: 1, last: T0 + 1200, expires: T0 + 2200 });
  });

  it('a sliding counter lives on while it is hit, and is forgotten after a quiet spell of its ttl', async () => {
    const hit = (at: number) => store.hit([{ key: 's', ttlMs: 1000, sliding: true }], at);
    await hit(T0);
    await hit(T0 + 900);
    await hit(T0 + 1800);
    expect((await store.read(['s'], T0 + 2799)).get('s')?.count).toBe(3);
    expect((await store.read(['s'], T0 + 2800)).has('s')).toBe(false);
    await hit(T0 + 5000);
    expect((await store.read(['s'], T0 + 5000)).get('s')?.count).toBe(1);
  });

  it('clears counters', async () => {
    await store.hit([{ key: 'a', ttlMs: HOUR, sliding: true }, { key: 'b', ttlMs: HOUR, sliding: true }], T0);
    await store.clear(['a', 'never-there']);
    const read = await store.read(['a', 'b'], T0);
    expect([...read.keys()]).toEqual(['b']);
  });

  it('keeps counters across instances over the same storage (restarts, several servers)', async () => {
    await store.hit([{ key: 'a', ttlMs: HOUR, sliding: true }], T0);
    const other = reopen();
    try {
      await other.hit([{ key: 'a', ttlMs: HOUR, sliding: true }], T0 + 1);
      expect((await store.read(['a'], T0 + 2)).get('a')?.count).toBe(2);
    } finally {
      await other.close();
    }
  });
}

describe('AttemptCounters contract: SqliteAttemptCounters (embedded)', () => {
  attemptCountersContract({
    open: async () => {
      const file = join(tempDir('counters-'), 'authserver.db');
      const store = new SqliteAttemptCounters(file);
      return { store, reopen: () => new SqliteAttemptCounters(file), dispose: () => store.close() };
    },
  });

  it('deletes expired counters as later hits come, so made-up keys do not pile up', async () => {
    const file = join(tempDir('counters-'), 'authserver.db');
    // The read store shares the file and its writer thread, as in the server.
    const views = new SqliteReadStore(file);
    const store = new SqliteAttemptCounters(file);
    try {
      await store.hit(Array.from({ length: 50 }, (_, i) => ({ key: `junk-${i}`, ttlMs: 1000, sliding: true })), T0);
      await store.hit([{ key: 'real', ttlMs: HOUR, sliding: true }], T0 + 5000);
      const db = openDatabase(file, false);
      try {
        expect(db.prepare('SELECT key FROM attempt_counters').pluck().all()).toEqual(['real']);
      } finally {
        db.close();
      }
    } finally {
      await store.close();
      await views.close();
    }
  });
});

const mongo = mongoAvailability();
if ('skip' in mongo) {
  console.log(`MongoDB attempt-counters contract skipped: ${mongo.skip}`);
  describe.skip('AttemptCounters contract: MongoAttemptCounters (no server)', () => {
    attemptCountersContract({ open: () => Promise.reject(new Error(mongo.skip)) });
  });
} else {
  describe('AttemptCounters contract: MongoAttemptCounters', () => {
    let server: ExternalServer | undefined;
    let admin: MongoClient | undefined;
    beforeAll(async () => {
      const found = await externalMongo();
      if ('skip' in found) throw new Error(`MongoDB unavailable: ${found.skip}`);
      server = found;
      admin = new MongoClient(found.url);
    }, 240_000);
    afterAll(async () => {
      await admin?.close();
      await server?.stop();
    });
    attemptCountersContract({
      open: async () => {
        const dbName = `counters_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
        const store = new MongoAttemptCounters(server!.url, dbName);
        return {
          store,
          reopen: () => new MongoAttemptCounters(server!.url, dbName),
          dispose: async () => {
            await store.close();
            await admin!.db(dbName).dropDatabase();
          },
        };
      },
    });
  });
}
