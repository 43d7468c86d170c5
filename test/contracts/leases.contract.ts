/**
 * The Leases port's contract, run against the embedded SQLite adapter (always) and the
 * MongoDB adapter (when MONGODB_URL is set or a container runtime can start one).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { Leases } from '../../src/infrastructure/read-store/lease.port.js';
import { MongoLeases } from '../../src/infrastructure/read-store/mongo-leases.js';
import { SqliteLeases } from '../../src/infrastructure/read-store/sqlite-leases.js';
import { externalMongo, type ExternalServer, mongoAvailability } from '../support/external-servers.js';
import { tempDir } from '../support/temp-dir.js';

interface Harness {
  /** A fresh store; `reopen` gives another instance over the same storage (another server). */
  open(): Promise<{ store: Leases; reopen(): Leases; dispose(): Promise<void> }>;
}

const T0 = 1_700_000_000_000;
const TTL = 10_000;

function leasesContract(harness: Harness): void {
  let store: Leases;
  let reopen: () => Leases;
  let dispose: () => Promise<void>;

  beforeEach(async () => {
    ({ store, reopen, dispose } = await harness.open());
  });
  afterEach(async () => {
    await dispose();
  });

  it('reads nothing for a lease never taken', async () => {
    expect(await store.read('projections')).toBeNull();
  });

  it('grants a free lease with fence 1 until now + ttl, and keeps the fence on renewal', async () => {
    expect(await store.acquire('projections', 'a', TTL, T0)).toEqual({ name: 'projections', owner: 'a', fence: 1, expiresAt: T0 + TTL });
    expect(await store.acquire('projections', 'a', TTL, T0 + 5000)).toEqual({ name: 'projections', owner: 'a', fence: 1, expiresAt: T0 + 5000 + TTL });
    expect(await store.read('projections')).toEqual({ name: 'projections', owner: 'a', fence: 1, expiresAt: T0 + 5000 + TTL });
  });

  it('refuses another owner while the lease is live, and gives it the next fence once it has expired', async () => {
    await store.acquire('projections', 'a', TTL, T0);
    expect(await store.acquire('projections', 'b', TTL, T0 + TTL - 1)).toBeNull();
    expect((await store.read('projections'))?.owner).toBe('a');
    expect(await store.acquire('projections', 'b', TTL, T0 + TTL)).toEqual({ name: 'projections', owner: 'b', fence: 2, expiresAt: T0 + 2 * TTL });
    // The old holder is now the other one: refused, and its renewal does not touch the lease.
    expect(await store.acquire('projections', 'a', TTL, T0 + TTL + 1)).toBeNull();
    expect((await store.read('projections'))?.fence).toBe(2);
  });

  it('gives a new fence to the same owner taking the lease again after it lapsed', async () => {
    await store.acquire('projections', 'a', TTL, T0);
    expect((await store.acquire('projections', 'a', TTL, T0 + TTL))?.fence).toBe(2);
  });

  it('a release frees the lease at once, for the next holder with a higher fence; a release by another owner does nothing', async () => {
    await store.acquire('projections', 'a', TTL, T0);
    await store.release('projections', 'b');
    expect(await store.acquire('projections', 'b', TTL, T0 + 1)).toBeNull();
    await store.release('projections', 'a');
    expect(await store.acquire('projections', 'b', TTL, T0 + 2)).toEqual({ name: 'projections', owner: 'b', fence: 2, expiresAt: T0 + 2 + TTL });
  });

  it('keeps leases apart by name', async () => {
    await store.acquire('projections', 'a', TTL, T0);
    expect(await store.acquire('deliveries', 'b', TTL, T0)).toEqual({ name: 'deliveries', owner: 'b', fence: 1, expiresAt: T0 + TTL });
  });

  it('gives a contended lease to exactly one of several servers racing for it', async () => {
    const others = Array.from({ length: 4 }, () => reopen());
    try {
      const grants = await Promise.all([store, ...others].map((s, i) => s.acquire('projections', `owner-${i}`, TTL, T0)));
      const won = grants.filter((g) => g !== null);
      expect(won).toHaveLength(1);
      expect(await store.read('projections')).toEqual(won[0]);
      const later = await Promise.all([store, ...others].map((s, i) => s.acquire('projections', `owner-${i}`, TTL, T0 + TTL)));
      expect(later.filter((g) => g !== null).map((g) => g!.fence)).toEqual([2]);
    } finally {
      for (const o of others) await o.close();
    }
  });
}

describe('Leases contract: SqliteLeases (embedded)', () => {
  leasesContract({
    open: async () => {
      const file = join(tempDir('leases-'), 'authserver.db');
      const store = new SqliteLeases(file);
      return { store, reopen: () => new SqliteLeases(file), dispose: () => store.close() };
    },
  });

  it('frees at once the leases of the process that held the file before (it is gone: the file serves one process)', async () => {
    const file = join(tempDir('leases-'), 'authserver.db');
    const before = new SqliteLeases(file);
    await before.acquire('projections', 'killed', TTL, T0);
    await before.close();
    const after = new SqliteLeases(file);
    try {
      expect(await after.acquire('projections', 'restarted', TTL, T0 + 1)).toEqual({ name: 'projections', owner: 'restarted', fence: 2, expiresAt: T0 + 1 + TTL });
    } finally {
      await after.close();
    }
  });
});

const mongo = mongoAvailability();
if ('skip' in mongo) {
  console.log(`MongoDB leases contract skipped: ${mongo.skip}`);
  describe.skip('Leases contract: MongoLeases (no server)', () => {
    leasesContract({ open: () => Promise.reject(new Error(mongo.skip)) });
  });
} else {
  describe('Leases contract: MongoLeases', () => {
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
    leasesContract({
      open: async () => {
        const dbName = `leases_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
        const store = new MongoLeases(server!.url, dbName);
        return {
          store,
          reopen: () => new MongoLeases(server!.url, dbName),
          dispose: async () => {
            await store.close();
            await admin!.db(dbName).dropDatabase();
          },
        };
      },
    });
  });
}
