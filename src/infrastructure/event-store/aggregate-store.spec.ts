import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp-dir.js';
import { jest } from '@jest/globals';
import { type Decider, type DomainEvent, factDecider } from '../../domain/shared/decider.js';
import { KeyEncryption } from '../crypto/key-encryption.js';
import { SqliteReadStore } from '../read-store/sqlite-read-store.js';
import { AggregateStore } from './aggregate-store.js';
import { Snapshots } from './snapshots.js';
import { SqliteEventStore } from './sqlite-event-store.js';

type Added = DomainEvent<'Added', { n: number }>;
const counter: Decider<{ add: number }, Added, number> = {
  initialState: 0,
  decide: (c) => (c.add ? [{ type: 'Added', data: { n: c.add } }] : []),
  evolve: (s, e) => s + e.data.n,
};
const ctx = { actor: 'test', now: new Date(0) };

describe('aggregate store: work alongside the append', () => {
  let events: SqliteEventStore;
  beforeEach(() => {
    events = new SqliteEventStore(join(tempDir('aggregate-'), 'e.db'));
  });
  afterEach(() => events.close());

  it('returns what the work made of the decision once the events are durable', async () => {
    const store = new AggregateStore(events);
    const seen: number[] = [];
    const outcome = await store.execute('c-1', counter, { add: 2 }, ctx, (decided, state) => {
      seen.push(state);
      return `${decided.length} event, state ${state}`;
    });
    expect(outcome).toMatchObject({ state: 2, alongside: '1 event, state 2' });
    expect(seen).toEqual([2]);
    expect(await events.readStream('c-1')).toHaveLength(1);
  });

  it('does not run the work when nothing is decided', async () => {
    let ran = false;
    const outcome = await new AggregateStore(events).execute('c-1', counter, { add: 0 }, ctx, () => (ran = true));
    expect(outcome.alongside).toBeUndefined();
    expect(ran).toBe(false);
  });

  it('discards the work of a decision that lost a conflict and runs it again on the next one', async () => {
    const store = new AggregateStore(events);
    const other = new AggregateStore(events);
    await store.execute('c-1', counter, { add: 1 }, ctx);
    await other.execute('c-1', counter, { add: 10 }, ctx);
    const states: number[] = [];
    // `store` still holds state 1 at revision 0; the store is exclusive, so it decides on it, conflicts, and folds again.
    const outcome = await store.execute('c-1', counter, { add: 100 }, ctx, (_, state) => {
      states.push(state);
      return state;
    });
    expect(states).toEqual([101, 111]);
    expect(outcome.alongside).toBe(111);
  });

  it('keeps the state of a command that followed while the work of an earlier one was still running', async () => {
    const store = new AggregateStore(events);
    await store.execute('c-1', counter, { add: 1 }, ctx);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const slow = store.execute('c-1', counter, { add: 10 }, ctx, () => held.then(() => 'signed'));
    // The first command's events are durable once the second one can see them.
    for (let i = 0; i < 100 && (await events.readStream('c-1')).length < 2; i++) await new Promise((r) => setTimeout(r, 5));
    expect((await store.execute('c-1', counter, { add: 100 }, ctx)).state).toBe(111);
    release();
    expect((await slow).alongside).toBe('signed');
    expect(await store.load('c-1', counter)).toEqual({ state: 111, revision: 2 });
  });

  it('lets every one of many parallel commands on one stream through, each deciding on the state the one before left', async () => {
    const store = new AggregateStore(events);
    const outcomes = await Promise.all(Array.from({ length: 40 }, () => store.execute('c-1', counter, { add: 1 }, ctx, (_, state) => state)));
    expect(outcomes.map((o) => o.alongside).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await store.load('c-1', counter)).toEqual({ state: 40, revision: 39 });
  });

  it('fails the command when the work fails, and keeps its state current for the next command', async () => {
    const store = new AggregateStore(events);
    await expect(
      store.execute('c-1', counter, { add: 1 }, ctx, () => {
        throw new Error('signing failed');
      }),
    ).rejects.toThrow('signing failed');
    expect(await events.readStream('c-1')).toHaveLength(1);
    expect((await store.execute('c-1', counter, { add: 1 }, ctx)).state).toBe(2);
  });
});

describe('aggregate store: stateless deciders', () => {
  const facts = factDecider((c: { add: number }): Added[] => (c.add ? [{ type: 'Added', data: { n: c.add } }] : []));
  let events: SqliteEventStore;
  beforeEach(() => {
    events = new SqliteEventStore(join(tempDir('aggregate-'), 'e.db'));
  });
  afterEach(() => events.close());

  it('appends what a stateless decider decides without reading the stream, after what others appended, and its work alongside', async () => {
    const store = new AggregateStore(events);
    await new AggregateStore(events).execute('c-1', counter, { add: 1 }, ctx);
    const read = jest.spyOn(events, 'readStream');
    const outcome = await store.execute('c-1', facts, { add: 2 }, ctx, (decided) => decided.length);
    expect(outcome).toMatchObject({ events: [{ type: 'Added', data: { n: 2 } }], state: null, alongside: 1 });
    expect(read).not.toHaveBeenCalled();
    expect(await store.execute('c-1', facts, { add: 0 }, ctx)).toEqual({ events: [], state: null, position: 0 });
    await expect(store.execute('c-1', facts, { add: 3 }, { ...ctx, expectedRevision: 1 })).rejects.toThrow('no revision to expect');
    read.mockRestore();
    expect((await events.readStream('c-1')).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('does not queue its appends behind the commands taking their turns on the stream', async () => {
    const store = new AggregateStore(events);
    const first = store.execute('c-1', counter, { add: 1 }, ctx);
    const second = store.execute('c-1', counter, { add: 10 }, ctx);
    await store.execute('c-1', facts, { add: 100 }, ctx);
    await Promise.all([first, second]);
    // The fact went first: the counter's commands were still taking their turns.
    expect((await events.readStream('c-1')).map((e) => e.data)).toEqual([{ n: 100 }, { n: 1 }, { n: 10 }]);
  });
});

describe('aggregate store: snapshots of long streams', () => {
  // A counter whose state is saved as text, so that a test can tell a restored state from a folded one.
  const codec = { version: 1, encode: (n: number) => `n=${n}`, decode: (x: unknown) => Number(String(x).slice(2)) };
  const saved: Decider<{ add: number }, Added, number> = { ...counter, snapshot: codec };
  const keys = KeyEncryption.load(Buffer.alloc(32, 9).toString('base64'), '.');
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  const snapshots = () => new Snapshots(reads, keys);
  beforeEach(() => {
    const file = join(tempDir('snapshots-'), 'e.db');
    events = new SqliteEventStore(file);
    reads = new SqliteReadStore(file);
  });
  afterEach(async () => {
    await events.close();
    await reads.close();
  });

  async function grow(store: AggregateStore, commands: number): Promise<void> {
    for (let i = 0; i < commands; i++) await store.execute('c-1', saved, { add: 1 }, ctx);
  }
  /** The snapshot document saved in the background, once it is there. */
  async function snapshotAt(revision: number): Promise<Record<string, unknown>> {
    for (let i = 0; i < 200; i++) {
      const doc = await reads.get<{ revision: number }>('snapshots', 'c-1');
      if (doc?.revision === revision) return doc;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`no snapshot at revision ${revision}`);
  }
  /** A load from a store that has just started: nothing cached. */
  const coldLoad = (decider = saved) => new AggregateStore(events, snapshots()).load('c-1', decider);

  it('saves the state every 2,000 events and loads a stream from its snapshot and the events after it', async () => {
    await grow(new AggregateStore(events, snapshots()), 2020);
    expect(await snapshotAt(1999)).toMatchObject({ version: 1, state: '"n=2000"' });
    const read = jest.spyOn(events, 'readStream');
    const fresh = new AggregateStore(events, snapshots());
    expect(await fresh.load('c-1', saved)).toEqual({ state: 2020, revision: 2019 });
    // One read: the snapshot's own event, to check it is this log's, and the 20 after it.
    expect(read.mock.calls.map((c) => c[1])).toEqual([{ fromRevision: 1999 }]);
    expect((await fresh.execute('c-1', saved, { add: 1 }, ctx)).state).toBe(2021);
  });

  it('saves a large state less often: one event more between snapshots per 50 characters of it', async () => {
    // Just under 125,000 characters: the next snapshot is due 2,500 events after the first, not 2,000.
    const large = { ...saved, snapshot: { ...codec, encode: (n: number) => ({ n, padding: 'x'.repeat(124_950) }), decode: (x: unknown) => (x as { n: number }).n } };
    const store = new AggregateStore(events, snapshots());
    for (let i = 0; i < 4100; i++) await store.execute('c-1', large, { add: 1 }, ctx);
    expect((await snapshotAt(1999)).revision).toBe(1999);
    for (let i = 0; i < 400; i++) await store.execute('c-1', large, { add: 1 }, ctx);
    await snapshotAt(4499);
    expect(await new AggregateStore(events, snapshots()).load('c-1', large)).toEqual({ state: 4500, revision: 4499 });
  });

  it('folds the stream from the start when its snapshot was saved under other rules, altered, or is not of this log', async () => {
    await grow(new AggregateStore(events, snapshots()), 2001);
    const doc = await snapshotAt(1999);
    expect(doc.version).toBe(1);
    expect(await coldLoad({ ...saved, snapshot: { ...codec, version: 2, decode: () => -1000 } })).toEqual({ state: 2001, revision: 2000 });
    // Altered in the read store: its keyed hash no longer matches.
    const { _id, _position, ...fields } = doc;
    await reads.commit('snapshots', [{ id: 'c-1', doc: { ...fields, state: '"n=-1000"' }, position: 1 }], 1);
    expect(await coldLoad()).toEqual({ state: 2001, revision: 2000 });
    // Intact, but its last event is not the one at its revision here, or the log is shorter (a log replaced or restored under kept views).
    for (const [revision, eventId] of [
      [1999, 'an event of another log'],
      [10_000, 'an event not written yet'],
    ] as const) {
      snapshots().save('c-1', { revision, eventId, position: 1, state: -1000 }, codec);
      await snapshotAt(revision);
      expect(await coldLoad()).toEqual({ state: 2001, revision: 2000 });
    }
  });
});
