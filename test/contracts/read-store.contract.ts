/**
 * The ReadStore port's contract, run against the embedded SQLite adapter (always) and the
 * MongoDB adapter (when MONGODB_URL is set or a container runtime can start one), each with
 * a ProjectionRunner test over an event store of the same deployment.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { Projection } from '../../projections/projection.js';
import type { EventData, EventStore } from '../../src/infrastructure/event-store/event-store.port.js';
import { EventStoreDbEventStore } from '../../src/infrastructure/event-store/eventstoredb-event-store.js';
import { SqliteEventStore } from '../../src/infrastructure/event-store/sqlite-event-store.js';
import { type Leases, LeaseLostError } from '../../src/infrastructure/read-store/lease.port.js';
import { MongoLeases } from '../../src/infrastructure/read-store/mongo-leases.js';
import { MongoReadStore } from '../../src/infrastructure/read-store/mongo-read-store.js';
import { SqliteLeases } from '../../src/infrastructure/read-store/sqlite-leases.js';
import { ProjectionRunner } from '../../src/infrastructure/read-store/projection-runner.js';
import type { DocumentWrite, ReadStore } from '../../src/infrastructure/read-store/read-store.port.js';
import { SqliteReadStore } from '../../src/infrastructure/read-store/sqlite-read-store.js';
import {
  eventStoreAvailability,
  externalEventStore,
  externalMongo,
  type ExternalServer,
  mongoAvailability,
} from '../support/external-servers.js';

interface Disposable<T> {
  value: T;
  dispose(): Promise<void>;
}

interface EventStoreHarness extends Disposable<EventStore> {
  /** The log holds nothing but this test's events. */
  isolated: boolean;
}

interface ReadStoreHarness extends Disposable<ReadStore> {
  /** Leases kept with the views (their fences guard commits). */
  leases: Leases;
}

interface Adapters {
  readStore(): Promise<ReadStoreHarness>;
  eventStoreName: string;
  eventStore(): Promise<EventStoreHarness>;
}

function write(id: string, doc: Record<string, unknown> | null, position: number): DocumentWrite {
  return { id, doc, position };
}

function event(type: string, data: Record<string, unknown>): EventData {
  return {
    id: randomUUID(),
    type,
    data,
    metadata: { actor: 'system', correlationId: randomUUID(), occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 },
  };
}

const ada = { name: 'ada', age: 36, active: true, nickname: null, tenant: 't1', address: { city: 'London', zip: 'N1' }, roles: ['admin'] };
const bob = { name: 'bob', age: 41, active: false, nickname: 'bobby', tenant: 't1', address: { city: 'Paris', zip: '75001' }, roles: [] };
const cy = { name: 'cy', age: 29, active: true, tenant: 't2', address: { city: 'Paris', zip: '75002' }, roles: ['user'] };

function readStoreContract(adapters: Adapters): void {
  let harness: ReadStoreHarness;
  let store: ReadStore;

  beforeEach(async () => {
    harness = await adapters.readStore();
    store = harness.value;
  });

  afterEach(async () => {
    await harness.dispose();
  });

  const ids = (docs: ReadonlyArray<{ _id: string }>) => docs.map((d) => d._id);

  async function seedPeople(): Promise<void> {
    await store.prepareView('people', 1, [{ fields: ['tenant'] }, { fields: ['address.city', 'age'] }]);
    await store.commit('people', [write('a', ada, 1), write('b', bob, 2), write('c', cy, 3)], 3);
  }

  describe('under a lease, with a change log', () => {
    const T0 = 1_700_000_000_000;
    const logged = new Set(['people']);

    it('refuses, writing nothing, a commit made under a fence the lease has moved past', async () => {
      await store.prepareView('people', 1, []);
      const first = await harness.leases.acquire('projections', 'a', 1000, T0);
      await store.commitAll([{ view: 'people', writes: [write('a', ada, 1)], checkpoint: 1 }], { fence: { lease: 'projections', fence: first!.fence } });
      const second = await harness.leases.acquire('projections', 'b', 1000, T0 + 1000);
      await expect(
        store.commitAll([{ view: 'people', writes: [write('b', bob, 2)], checkpoint: 2 }], { fence: { lease: 'projections', fence: first!.fence } }),
      ).rejects.toBeInstanceOf(LeaseLostError);
      expect(await store.get('people', 'b')).toBeNull();
      expect((await store.viewState('people'))?.position).toBe(1);
      await store.commitAll([{ view: 'people', writes: [write('b', bob, 2)], checkpoint: 2 }], { fence: { lease: 'projections', fence: second!.fence } });
      expect((await store.get<{ name: string }>('people', 'b'))?.name).toBe('bob');
    });

    it('logs the ids each commit changed in the logged views, in order of fence then position', async () => {
      await store.prepareView('people', 1, []);
      await store.prepareView('other', 1, []);
      expect(await store.lastChange()).toEqual({ fence: 0, position: 0 });
      await store.commitAll(
        [
          { view: 'people', writes: [write('a', ada, 4), write('b', null, 5)], checkpoint: 5 },
          { view: 'other', writes: [write('x', cy, 5)], checkpoint: 5 },
        ],
        { log: { views: logged, fence: 1, at: T0 } },
      );
      await store.commitAll([{ view: 'people', writes: [], checkpoint: 6 }], { log: { views: logged, fence: 1, at: T0 } });
      await store.commitAll([{ view: 'people', writes: [write('c', cy, 3)], checkpoint: 3 }], { log: { views: logged, fence: 2, at: T0 + 1 } });
      expect(await store.changesAfter({ fence: 0, position: 0 }, 10)).toEqual([
        { fence: 1, position: 5, view: 'people', ids: ['a', 'b'] },
        { fence: 2, position: 3, view: 'people', ids: ['c'] },
      ]);
      expect(await store.changesAfter({ fence: 1, position: 5 }, 10)).toEqual([{ fence: 2, position: 3, view: 'people', ids: ['c'] }]);
      expect(await store.changesAfter({ fence: 0, position: 0 }, 1)).toHaveLength(1);
      expect(await store.lastChange()).toEqual({ fence: 2, position: 3 });
    });
  });

  it('reads a view no runner has prepared yet as empty (a process that only reads, started first)', async () => {
    expect(await store.get('unprepared', 'a')).toBeNull();
    expect(await store.find('unprepared', { tenant: 't1' }, { sortBy: '_position' })).toEqual([]);
    await store.prepareView('unprepared', 1, [{ fields: ['tenant'] }]);
    await store.commit('unprepared', [write('a', ada, 1)], 1);
    expect(ids(await store.find('unprepared', { tenant: 't1' }))).toEqual(['a']);
    expect(await store.viewState('unprepared')).toEqual({ position: 1, version: 1 });
  });

  it('prepares an empty view at checkpoint 0 with its version', async () => {
    expect(await store.viewState('accounts')).toBeNull();
    await store.prepareView('accounts', 1, [{ fields: ['owner'] }, { fields: ['email'], unique: true }, { fields: ['address.city', 'age'] }]);
    expect(await store.viewState('accounts')).toEqual({ version: 1, position: 0 });
    expect(await store.get('accounts', 'a')).toBeNull();
    expect((await store.getMany('accounts', ['a'])).size).toBe(0);
    expect(await store.find('accounts', {})).toEqual([]);
  });

  it('commits documents with the checkpoint; documents are their fields plus _id and _position, nothing else', async () => {
    await store.prepareView('people', 1, []);
    await store.commit('people', [write('a', ada, 3), write('b', bob, 5)], 7);
    expect(await store.viewState('people')).toEqual({ version: 1, position: 7 });
    expect(await store.get('people', 'a')).toStrictEqual({ ...ada, _id: 'a', _position: 3 });
    const many = await store.getMany('people', ['b', 'missing', 'a']);
    expect([...many.keys()]).toEqual(['b', 'a']);
    expect(many.get('b')).toStrictEqual({ ...bob, _id: 'b', _position: 5 });
    expect(await store.find('people', {}, { sortBy: '_id' })).toStrictEqual([
      { ...ada, _id: 'a', _position: 3 },
      { ...bob, _id: 'b', _position: 5 },
    ]);
  });

  it('upserts by id (replaying a commit changes nothing), replaces whole documents, and deletes on a null document', async () => {
    await store.prepareView('people', 1, []);
    await store.commit('people', [write('a', ada, 3)], 3);
    await store.commit('people', [write('a', ada, 3)], 3);
    expect(await store.find('people', {})).toStrictEqual([{ ...ada, _id: 'a', _position: 3 }]);

    const { nickname: _dropped, ...older } = ada;
    await store.commit('people', [write('a', { ...older, age: 37 }, 8)], 8);
    expect(await store.get('people', 'a')).toStrictEqual({ ...older, age: 37, _id: 'a', _position: 8 });

    await store.commit('people', [write('b', bob, 9)], 9);
    await store.commit('people', [write('a', null, 10), write('never-there', null, 10)], 10);
    expect(await store.get('people', 'a')).toBeNull();
    expect(ids(await store.find('people', {}))).toEqual(['b']);
    expect(await store.viewState('people')).toEqual({ version: 1, position: 10 });
  });

  it('never moves a checkpoint backwards', async () => {
    await store.prepareView('people', 1, []);
    await store.commit('people', [], 10);
    await store.commit('people', [], 4);
    expect(await store.viewState('people')).toEqual({ version: 1, position: 10 });
  });

  it('applies nothing of a commit that fails (documents and checkpoint stay as they were)', async () => {
    await store.prepareView('accounts', 1, [{ fields: ['email'], unique: true }]);
    await store.commit('accounts', [write('a', { email: 'x@example.com' }, 1)], 1);
    // Not `.rejects.toThrow()`: better-sqlite3's native addon keeps the SqliteError class of the first jest
    // module registry that loaded it in this worker, and toThrow() does not recognise an Error of another realm.
    await expect(
      store.commit('accounts', [write('b', { email: 'y@example.com' }, 2), write('c', { email: 'x@example.com' }, 3)], 3),
    ).rejects.toHaveProperty('message');
    expect(await store.get('accounts', 'b')).toBeNull();
    expect(await store.viewState('accounts')).toEqual({ version: 1, position: 1 });
    // Documents without the unique field do not collide with each other.
    await store.commit('accounts', [write('d', { name: 'd' }, 4), write('e', { name: 'e' }, 5)], 5);
    expect(ids(await store.find('accounts', {}, { sortBy: '_id' }))).toEqual(['a', 'd', 'e']);
  });

  it('finds by equality on strings, numbers, booleans, null and dotted fields', async () => {
    await seedPeople();
    const find = async (filter: Record<string, string | number | boolean | null>) => ids(await store.find('people', filter, { sortBy: '_id' }));
    expect(await find({ tenant: 't1' })).toEqual(['a', 'b']);
    expect(await find({ age: 41 })).toEqual(['b']);
    expect(await find({ active: true })).toEqual(['a', 'c']);
    expect(await find({ active: false })).toEqual(['b']);
    expect(await find({ nickname: null })).toEqual(['a', 'c']);
    expect(await find({ nickname: 'bobby' })).toEqual(['b']);
    expect(await find({ 'address.city': 'Paris' })).toEqual(['b', 'c']);
    expect(await find({ 'address.city': 'Paris', active: true })).toEqual(['c']);
    expect(await find({ _id: 'b' })).toEqual(['b']);
    expect(await find({ name: 'nobody' })).toEqual([]);
    expect(await find({})).toEqual(['a', 'b', 'c']);
    expect((await store.find('people', { name: 'cy' }))[0]).toStrictEqual({ ...cy, _id: 'c', _position: 3 });
  });

  it('finds through a sparse index the same documents as without one, also when an index is redefined', async () => {
    await store.prepareView('entries', 1, [{ fields: ['tenant', 'session'] }]);
    await store.prepareView('entries', 1, [{ fields: ['tenant', 'session'], sparse: true }, { fields: ['tenant', 'client'], sparse: true }]);
    const docs = [{ tenant: 't1', session: 's1', client: 'c1' }, { tenant: 't1', client: 'c1' }, { tenant: 't1', session: 's2' }, { tenant: 't2', session: 's1' }];
    await store.commit('entries', docs.map((d, i) => write(`e${i}`, d, i + 1)), docs.length);
    const find = async (filter: Record<string, string | null>) => ids(await store.find('entries', filter, { sortBy: '_position' }));
    expect(await find({ tenant: 't1', session: 's1' })).toEqual(['e0']);
    expect(await find({ tenant: 't1', client: 'c1' })).toEqual(['e0', 'e1']);
    expect(await find({ tenant: 't1', session: null })).toEqual(['e1']);
    expect(await find({ tenant: 't1' })).toEqual(['e0', 'e1', 'e2']);
  });

  it('pages by id: a prefix of the id and the id a page ended with', async () => {
    await store.prepareView('pages', 1, []);
    await store.commit('pages', ['t1/a', 't1/b', 't1/c', 't10/a', 't2/a'].map((id, i) => write(id, { n: i }, i + 1)), 5);
    const page = async (o: { idPrefix?: string; afterId?: string; limit?: number }) => ids(await store.find('pages', {}, { sortBy: '_id', ...o }));
    expect(await page({ idPrefix: 't1/' })).toEqual(['t1/a', 't1/b', 't1/c']);
    expect(await page({ idPrefix: 't1/', limit: 2 })).toEqual(['t1/a', 't1/b']);
    expect(await page({ idPrefix: 't1/', afterId: 't1/b' })).toEqual(['t1/c']);
    expect(await page({ idPrefix: 't1/', afterId: 't1/c' })).toEqual([]);
    expect(await page({ idPrefix: 't1/', afterId: 't0' })).toEqual(['t1/a', 't1/b', 't1/c']);
    expect(await page({ afterId: 't10/a' })).toEqual(['t2/a']);
    expect(ids(await store.find('pages', { n: 1 }, { idPrefix: 't1/' }))).toEqual(['t1/b']);
  });

  it('finds by a prefix of a field, after a value of it, under equality on the fields before it', async () => {
    await store.prepareView('handles', 1, [{ fields: ['tenant', 'key'], unique: true }]);
    const handles = [['t1', 'al'], ['t1', 'alice'], ['t1', 'alina'], ['t1', 'am'], ['t1', 'bob'], ['t2', 'alice'], ['t1', 'al\u00e9']];
    await store.commit('handles', handles.map(([tenant, key], i) => write(`${tenant}/${i}`, { tenant, key, n: i }, i + 1)), handles.length);
    const keys = async (prefix: string, o: { after?: string; limit?: number; descending?: boolean } = {}) =>
      (await store.find<{ key: string }>('handles', { tenant: 't1' }, { fieldPrefix: { field: 'key', prefix, ...(o.after !== undefined ? { after: o.after } : {}) }, sortBy: 'key', descending: o.descending, limit: o.limit })).map((d) => d.key);
    expect(await keys('al')).toEqual(['al', 'alice', 'alina', 'al\u00e9']);
    expect(await keys('ali')).toEqual(['alice', 'alina']);
    expect(await keys('al', { limit: 2 })).toEqual(['al', 'alice']);
    expect(await keys('al', { after: 'alice', limit: 2 })).toEqual(['alina', 'al\u00e9']);
    expect(await keys('al', { after: 'al\u00e9' })).toEqual([]);
    expect(await keys('al', { after: 'a' })).toEqual(['al', 'alice', 'alina', 'al\u00e9']);
    expect(await keys('', { after: 'am' })).toEqual(['bob']);
    expect(await keys('al', { descending: true, limit: 1 })).toEqual(['al\u00e9']);
    expect(await keys('z')).toEqual([]);
    expect(ids(await store.find('handles', { tenant: 't2' }, { fieldPrefix: { field: 'key', prefix: 'a' } }))).toEqual(['t2/5']);
  });

  it('sorts ascending or descending on fields, _id and _position, and limits', async () => {
    await seedPeople();
    expect(ids(await store.find('people', {}, { sortBy: 'age' }))).toEqual(['c', 'a', 'b']);
    expect(ids(await store.find('people', {}, { sortBy: 'name', descending: true }))).toEqual(['c', 'b', 'a']);
    expect(ids(await store.find('people', {}, { sortBy: '_position', descending: true, limit: 2 }))).toEqual(['c', 'b']);
    expect(ids(await store.find('people', {}, { sortBy: '_id', descending: true }))).toEqual(['c', 'b', 'a']);
    expect(ids(await store.find('people', {}, { sortBy: 'address.zip', limit: 1 }))).toEqual(['b']);
    expect(ids(await store.find('people', { tenant: 't1' }, { sortBy: 'age', descending: true }))).toEqual(['b', 'a']);
    expect(await store.find('people', {}, { limit: 1 })).toHaveLength(1);
  });

  it('resets a view: no documents, checkpoint 0, the given version', async () => {
    await seedPeople();
    await store.resetView('people', 2);
    expect(await store.find('people', {})).toEqual([]);
    expect(await store.get('people', 'a')).toBeNull();
    expect(await store.viewState('people')).toEqual({ version: 2, position: 0 });
  });

  it('keeps a view prepared again at the same version and empties it at a new version', async () => {
    await seedPeople();
    await store.prepareView('people', 1, [{ fields: ['tenant'] }, { fields: ['address.city', 'age'] }]);
    expect(ids(await store.find('people', {}, { sortBy: '_id' }))).toEqual(['a', 'b', 'c']);
    expect(await store.viewState('people')).toEqual({ version: 1, position: 3 });
    await store.prepareView('people', 2, [{ fields: ['tenant'] }]);
    expect(await store.find('people', {})).toEqual([]);
    expect(await store.viewState('people')).toEqual({ version: 2, position: 0 });
  });

  it('keeps views apart', async () => {
    await store.prepareView('people', 1, []);
    await store.prepareView('accounts', 1, []);
    await store.commit('people', [write('a', ada, 4)], 4);
    expect(await store.get('accounts', 'a')).toBeNull();
    expect(await store.viewState('accounts')).toEqual({ version: 1, position: 0 });
    await store.resetView('accounts', 1);
    expect(await store.get('people', 'a')).not.toBeNull();
  });

  it(`runs a ProjectionRunner over ${adapters.eventStoreName}: live catch-up, waitFor, and an identical rebuild`, async () => {
    const events = await adapters.eventStore();
    const log = events.value;
    const tag = `c${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const T = { opened: `${tag}.Opened`, deposited: `${tag}.Deposited`, closed: `${tag}.Closed`, noise: `${tag}.Noise` };
    interface Account {
      owner: string;
      balance: number;
      deposits: number;
      vip: boolean;
    }
    const accounts: Projection<Account> = {
      view: 'accounts',
      version: 1,
      eventTypes: [T.opened, T.deposited, T.closed],
      indexes: [{ fields: ['owner'] }],
      documentId: (e) => e.data.accountId as string,
      apply: (doc, e) => {
        switch (e.type) {
          case T.opened:
            return { owner: e.data.owner, balance: 0, deposits: 0, vip: false };
          case T.deposited:
            return doc && { ...doc, balance: doc.balance + e.data.amount, deposits: doc.deposits + 1, vip: doc.balance + e.data.amount >= 100 };
          case T.closed:
            return null;
          default:
            return doc;
        }
      },
    };
    const runner = new ProjectionRunner(log, store, [accounts]);
    try {
      await log.append(`${tag}-account-1`, [event(T.opened, { accountId: 'acc-1', owner: 'ada' }), event(T.deposited, { accountId: 'acc-1', amount: 60 })], 'no_stream');
      const bobOpened = await log.append(`${tag}-account-2`, [event(T.opened, { accountId: 'acc-2', owner: 'bob' })], 'no_stream');
      await log.append(`${tag}-noise`, [event(T.noise, { accountId: 'acc-1' })], 'no_stream');
      await log.append(`${tag}-account-3`, [event(T.opened, { accountId: 'acc-3', owner: 'cy' }), event(T.closed, { accountId: 'acc-3' })], 'no_stream');

      await runner.start();
      const live = await log.append(`${tag}-account-1`, [event(T.deposited, { accountId: 'acc-1', amount: 50 })], 1);
      await runner.waitFor(['accounts'], live.position, 5000);
      expect(runner.position('accounts')).toBeGreaterThanOrEqual(live.position);
      expect((await store.viewState('accounts'))?.position).toBeGreaterThanOrEqual(live.position);

      const built = await store.find('accounts', {}, { sortBy: '_id' });
      expect(built).toStrictEqual([
        { owner: 'ada', balance: 110, deposits: 2, vip: true, _id: 'acc-1', _position: live.position },
        { owner: 'bob', balance: 0, deposits: 0, vip: false, _id: 'acc-2', _position: bobOpened.position },
      ]);
      expect(ids(await store.find('accounts', { vip: true }))).toEqual(['acc-1']);

      await runner.stop();
      const read = await new ProjectionRunner(log, store, [accounts]).rebuild();
      if (events.isolated) expect(read).toBe(7);
      else expect(read).toBeGreaterThanOrEqual(7);
      expect(await store.find('accounts', {}, { sortBy: '_id' })).toStrictEqual(built);

      // Starting at another version rebuilds the view and says from which version to which,
      // in either direction (a newer build, then a rollback); the same version says nothing.
      const startStop = async (version: number) => {
        const other = new ProjectionRunner(log, store, [{ ...accounts, version }]);
        const changes = await other.start();
        await other.waitFor(['accounts'], live.position, 5000);
        await other.stop();
        return changes;
      };
      expect(await startStop(2)).toStrictEqual([{ view: 'accounts', stored: 1, version: 2 }]);
      expect(await startStop(2)).toStrictEqual([]);
      expect(await startStop(1)).toStrictEqual([{ view: 'accounts', stored: 2, version: 1 }]);
      expect(await store.find('accounts', {}, { sortBy: '_id' })).toStrictEqual(built);
    } finally {
      await runner.stop();
      await events.dispose();
    }
  });
}

function tempDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'read-store-contract-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function sqliteEventStore(): Promise<EventStoreHarness> {
  const tmp = tempDir();
  const value = new SqliteEventStore(join(tmp.dir, 'events.db'));
  return {
    value,
    isolated: true,
    dispose: async () => {
      await value.close();
      tmp.remove();
    },
  };
}

describe('ReadStore contract: SqliteReadStore (embedded)', () => {
  readStoreContract({
    readStore: async () => {
      const tmp = tempDir();
      const value = new SqliteReadStore(join(tmp.dir, 'views.db'));
      const leases = new SqliteLeases(join(tmp.dir, 'views.db'));
      return {
        value,
        leases,
        dispose: async () => {
          await leases.close();
          await value.close();
          tmp.remove();
        },
      };
    },
    eventStoreName: 'SqliteEventStore',
    eventStore: sqliteEventStore,
  });
});

const mongo = mongoAvailability();
if ('skip' in mongo) {
  console.log(`MongoDB contract skipped: ${mongo.skip}`);
  describe.skip('ReadStore contract: MongoReadStore (no server)', () => {
    readStoreContract({
      readStore: () => Promise.reject(new Error(mongo.skip)),
      eventStoreName: 'EventStoreDbEventStore',
      eventStore: () => Promise.reject(new Error(mongo.skip)),
    });
  });
} else {
  // The runner test pairs MongoDB with EventStoreDB when that one is reachable too.
  const withEventStoreDb = !('skip' in eventStoreAvailability());
  describe('ReadStore contract: MongoReadStore', () => {
    let server: ExternalServer | undefined;
    let eventStoreServer: ExternalServer | undefined;
    let admin: MongoClient | undefined;

    beforeAll(async () => {
      const found = await externalMongo();
      if ('skip' in found) throw new Error(`MongoDB unavailable: ${found.skip}`);
      server = found;
      admin = new MongoClient(found.url);
      if (withEventStoreDb) {
        const es = await externalEventStore();
        if ('skip' in es) throw new Error(`EventStoreDB unavailable: ${es.skip}`);
        eventStoreServer = es;
      }
    }, 240_000);

    afterAll(async () => {
      await admin?.close();
      await server?.stop();
      await eventStoreServer?.stop();
    });

    readStoreContract({
      readStore: async () => {
        const dbName = `contract_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
        const value = new MongoReadStore(server!.url, dbName);
        const leases = new MongoLeases(server!.url, dbName);
        return {
          value,
          leases,
          dispose: async () => {
            await leases.close();
            await value.close();
            await admin!.db(dbName).dropDatabase();
          },
        };
      },
      eventStoreName: withEventStoreDb ? 'EventStoreDbEventStore' : 'SqliteEventStore',
      eventStore: withEventStoreDb
        ? async () => {
            const value = new EventStoreDbEventStore(eventStoreServer!.url);
            return { value, isolated: false, dispose: () => value.close() };
          }
        : sqliteEventStore,
    });
  });
}
