/**
 * The EventStore port's contract, run against the embedded SQLite adapter (always) and the
 * EventStoreDB adapter (when EVENTSTORE_URL is set or a container runtime can start one).
 * Every test names its streams and event types with a fresh tag, so that it also holds on a
 * server shared with other tests.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from '../../src/infrastructure/event-store/event-store.port.js';
import { EventStoreDbEventStore } from '../../src/infrastructure/event-store/eventstoredb-event-store.js';
import { SqliteEventStore } from '../../src/infrastructure/event-store/sqlite-event-store.js';
import { eventStoreAvailability, externalEventStore, type ExternalServer } from '../support/external-servers.js';

interface Harness {
  store: EventStore;
  /** The store held no event when the test began. */
  empty: boolean;
  /** Nobody else appends while the test runs. */
  exclusive: boolean;
  /**
   * A sweep removes expired streams from reads of the whole log too. EventStoreDB hides them
   * from stream reads at once, and from `$all` only once a scavenge has run.
   */
  sweepsLog: boolean;
  dispose(): Promise<void>;
}

function event(type: string, data: unknown = {}): EventData {
  return {
    id: randomUUID(),
    type,
    data,
    metadata: { actor: 'system', correlationId: randomUUID(), occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 },
  };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function take(it: AsyncIterator<RecordedEvent>, count: number): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  while (out.length < count) {
    const next = await within(it.next(), 5000, `event ${out.length + 1} of ${count}`);
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

async function waitUntil(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function expectWrongRevision(
  attempt: Promise<unknown>,
  streamId: string,
  expected: ExpectedRevision,
  actual: number | 'no_stream',
): Promise<void> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WrongExpectedRevisionError);
  expect(error).toMatchObject({ streamId, expected, actual });
}

function increasing(positions: readonly number[]): boolean {
  return positions.every((p, i) => i === 0 || p > positions[i - 1]);
}

function eventStoreContract(makeHarness: () => Promise<Harness>): void {
  let h: Harness;
  let store: EventStore;
  let tag: string;
  const stream = (name: string) => `${tag}-${name}`;
  const type = (name: string) => `${tag}.${name}`;
  const mine = (events: readonly RecordedEvent[]) => events.filter((e) => e.streamId.startsWith(`${tag}-`));

  beforeEach(async () => {
    h = await makeHarness();
    store = h.store;
    tag = `c${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('appends to a new stream with no_stream; revisions start at 0; data and metadata round-trip as JSON', async () => {
    const s = stream('account-1');
    const e1 = event(type('Opened'), { owner: 'ada', limits: { daily: 100 }, tags: ['a', 'ü'], note: null, ok: true });
    const e2 = event(type('Deposited'), { amount: 12.5 });
    const result = await store.append(s, [e1, e2], 'no_stream');
    expect(result.nextRevision).toBe(1);
    const read = await store.readStream(s);
    expect(read).toEqual([
      { ...e1, streamId: s, revision: 0, position: expect.any(Number) },
      { ...e2, streamId: s, revision: 1, position: result.position },
    ]);
    expect(read[0].position).toBeLessThan(read[1].position);
  });

  it('appends to several streams together, all or none, where the store offers it (EventStoreDB does not)', async () => {
    if (!store.appendTogether) return;
    const [claim, record, taken] = [stream('claim'), stream('record'), stream('taken')];
    await store.append(taken, [event(type('Claimed'))], 'no_stream');
    await expectWrongRevision(store.appendTogether([{ streamId: record, events: [event(type('Recorded'))], expected: 'any' }, { streamId: taken, events: [event(type('Claimed'))], expected: 'no_stream' }]), taken, 'no_stream', 0);
    expect(await store.readStream(record)).toEqual([]);
    const results = await store.appendTogether([{ streamId: claim, events: [event(type('Claimed'))], expected: 'no_stream' }, { streamId: record, events: [event(type('Recorded'))], expected: 'no_stream' }]);
    expect(results.map((r) => r.nextRevision)).toEqual([0, 0]);
    expect(increasing(results.map((r) => r.position))).toBe(true);
    expect((await store.readStream(record)).map((e) => e.position)).toEqual([results[1].position]);
  });

  it('rejects no_stream on an existing stream', async () => {
    const s = stream('a');
    await store.append(s, [event(type('Opened'))], 'no_stream');
    await expectWrongRevision(store.append(s, [event(type('Opened'))], 'no_stream'), s, 'no_stream', 0);
    expect(await store.readStream(s)).toHaveLength(1);
  });

  it('appends at an exact revision only when it is the last one', async () => {
    const s = stream('a');
    await expectWrongRevision(store.append(s, [event(type('E'))], 0), s, 0, 'no_stream');
    await store.append(s, [event(type('E'))], 'no_stream');
    expect((await store.append(s, [event(type('E')), event(type('E'))], 0)).nextRevision).toBe(2);
    await expectWrongRevision(store.append(s, [event(type('E'))], 1), s, 1, 2);
    await expectWrongRevision(store.append(s, [event(type('E'))], 5), s, 5, 2);
    expect((await store.append(s, [event(type('E'))], 2)).nextRevision).toBe(3);
    expect((await store.readStream(s)).map((e) => e.revision)).toEqual([0, 1, 2, 3]);
  });

  it('appends with any whether or not the stream exists', async () => {
    const s = stream('a');
    expect((await store.append(s, [event(type('E'))], 'any')).nextRevision).toBe(0);
    expect((await store.append(s, [event(type('E')), event(type('E'))], 'any')).nextRevision).toBe(2);
  });

  it('appends with stream_exists only to an existing stream', async () => {
    const s = stream('a');
    await expectWrongRevision(store.append(s, [event(type('E'))], 'stream_exists'), s, 'stream_exists', 'no_stream');
    expect(await store.readStream(s)).toEqual([]);
    await store.append(s, [event(type('E'))], 'any');
    expect((await store.append(s, [event(type('E'))], 'stream_exists')).nextRevision).toBe(1);
  });

  it('gives positions that strictly increase across streams, in commit order', async () => {
    const plan: Array<[string, number]> = [['a', 1], ['b', 2], ['a', 1], ['c', 3], ['b', 1]];
    const results: AppendResult[] = [];
    for (const [name, count] of plan) {
      results.push(await store.append(stream(name), Array.from({ length: count }, (_, i) => event(type('E'), { name, i })), 'any'));
    }
    expect(increasing(results.map((r) => r.position))).toBe(true);
    const all = await store.readAll({ filter: { streamPrefixes: [`${tag}-`] } });
    expect(all).toHaveLength(8);
    expect(increasing(all.map((e) => e.position))).toBe(true);
    let end = 0;
    plan.forEach(([name, count], i) => {
      end += count;
      expect(all[end - 1]).toMatchObject({ streamId: stream(name), position: results[i].position, revision: results[i].nextRevision });
    });
  });

  it('reads a stream forwards from a revision, up to maxCount; an absent stream reads as empty', async () => {
    const s = stream('a');
    await store.append(s, Array.from({ length: 5 }, (_, i) => event(type('E'), { i })), 'no_stream');
    expect((await store.readStream(s)).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
    expect((await store.readStream(s, { fromRevision: 2 })).map((e) => e.data)).toEqual([{ i: 2 }, { i: 3 }, { i: 4 }]);
    expect((await store.readStream(s, { fromRevision: 1, maxCount: 2 })).map((e) => e.revision)).toEqual([1, 2]);
    expect((await store.readStream(s, { maxCount: 1 })).map((e) => e.revision)).toEqual([0]);
    expect(await store.readStream(s, { fromRevision: 5 })).toEqual([]);
    expect(await store.readStream(stream('absent'))).toEqual([]);
  });

  it('reads the events at given positions, in log order, leaving out positions that hold none', async () => {
    const r1 = await store.append(stream('x'), [event(type('E'), { n: 1 })], 'no_stream');
    const r2 = await store.append(stream('y'), [event(type('E'), { n: 2 }), event(type('E'), { n: 3 })], 'no_stream');
    const [second] = (await store.readStream(stream('y'))).slice(0, 1);
    const read = await store.readPositions([r2.position, r1.position, second.position, r2.position + 1_000_000]);
    expect(read.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(read.map((e) => e.position)).toEqual([r1.position, second.position, r2.position]);
    expect(read[1]).toEqual(second);
    expect(await store.readPositions([])).toEqual([]);
  });

  it('trims a stream whose expiry has passed from every read, leaving other streams and positions as they were', async () => {
    const before = await store.append(stream('keep'), [event(type('E'), { n: 1 })], 'no_stream');
    const gone = await store.append(stream('gone'), [event(type('E'), { n: 2 }), event(type('E'), { n: 3 })], 'no_stream');
    const after = await store.append(stream('keep'), [event(type('E'), { n: 4 })], 0);
    await store.expireStream(stream('gone'), Date.now() - 1000);
    await store.sweepExpired(Date.now(), 100);
    expect(await store.readStream(stream('gone'))).toEqual([]);
    expect((await store.readAll({ filter: { streamPrefixes: [stream('keep')] } })).map((e) => [e.data, e.position])).toEqual([
      [{ n: 1 }, before.position],
      [{ n: 4 }, after.position],
    ]);
    if (h.sweepsLog) {
      expect((await store.readAll({ filter: { streamPrefixes: [`${tag}-`] } })).map((e) => e.data)).toEqual([{ n: 1 }, { n: 4 }]);
      expect((await store.readPositions([before.position, gone.position, after.position])).map((e) => e.data)).toEqual([{ n: 1 }, { n: 4 }]);
    }
    const next = await store.append(stream('keep'), [event(type('E'), { n: 5 })], 1);
    expect(next.position).toBeGreaterThan(after.position);
  });

  it('keeps a stream until its expiry: its events read as before and a no_stream append still fails', async () => {
    const s = stream('jti');
    const claimed = await store.append(s, [event(type('Used'), { n: 1 })], 'no_stream');
    await store.expireStream(s, Date.now() + 3_600_000);
    await store.sweepExpired(Date.now(), 100);
    await expectWrongRevision(store.append(s, [event(type('Used'), { n: 2 })], 'no_stream'), s, 'no_stream', 0);
    expect((await store.readStream(s)).map((e) => [e.data, e.position])).toEqual([[{ n: 1 }, claimed.position]]);
    expect(await store.readPositions([claimed.position])).toHaveLength(1);
  });

  it('reads all events after a position (exclusive), up to maxCount, without system events', async () => {
    const r1 = await store.append(stream('x'), [event(type('E'), { n: 1 })], 'no_stream');
    const r2 = await store.append(stream('y'), [event(type('E'), { n: 2 })], 'no_stream');
    const r3 = await store.append(stream('x'), [event(type('E'), { n: 3 })], 0);

    const after1 = await store.readAll({ afterPosition: r1.position });
    expect(after1.every((e) => e.position > r1.position)).toBe(true);
    expect(mine(after1).map((e) => e.data)).toEqual([{ n: 2 }, { n: 3 }]);

    const one = await store.readAll({ afterPosition: r1.position, maxCount: 1 });
    expect(one).toHaveLength(1);
    expect(one[0].position).toBeGreaterThan(r1.position);
    expect(one[0].position).toBeLessThanOrEqual(r2.position);
    if (h.exclusive) expect(one[0].position).toBe(r2.position);

    expect(await store.readAll({ afterPosition: r3.position, filter: { streamPrefixes: [`${tag}-`] } })).toEqual([]);
    expect(await store.readAll({ afterPosition: r1.position, maxCount: 0 })).toEqual([]);

    const all = await store.readAll();
    expect(mine(all).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(all.some((e) => e.type.startsWith('$') || e.streamId.startsWith('$'))).toBe(false);
    expect(increasing(all.map((e) => e.position))).toBe(true);
    if (h.empty && h.exclusive) {
      expect(all.map((e) => e.position)).toEqual([r1.position, r2.position, r3.position]);
      expect((await store.readAll({ maxCount: 2 })).map((e) => e.position)).toEqual([r1.position, r2.position]);
      expect((await store.readAll({ afterPosition: 0 })).map((e) => e.position)).toEqual([r1.position, r2.position, r3.position]);
    }
  });

  it('filters all events by type or by stream prefix, either one matching', async () => {
    await store.append(stream('user-1'), [event(type('UserCreated'), { u: 1 })], 'no_stream');
    await store.append(stream('client-1'), [event(type('ClientCreated'), { c: 1 })], 'no_stream');
    await store.append(stream('user-1'), [event(type('UserRenamed'), { u: 2 })], 0);
    await store.append(stream('tenant-1'), [event(type('TenantCreated'), { t: 1 })], 'no_stream');
    const data = (events: RecordedEvent[]) => events.map((e) => e.data);

    expect(data(await store.readAll({ filter: { eventTypes: [type('UserCreated'), type('TenantCreated')] } }))).toEqual([{ u: 1 }, { t: 1 }]);
    expect(data(await store.readAll({ filter: { streamPrefixes: [stream('client-')] } }))).toEqual([{ c: 1 }]);
    expect(
      data(await store.readAll({ filter: { eventTypes: [type('UserRenamed')], streamPrefixes: [stream('tenant-')] } })),
    ).toEqual([{ u: 2 }, { t: 1 }]);
    const first = await store.readAll({ filter: { streamPrefixes: [stream('user-')] }, maxCount: 1 });
    expect(data(first)).toEqual([{ u: 1 }]);
    expect(data(await store.readAll({ filter: { streamPrefixes: [stream('user-')] }, afterPosition: first[0].position }))).toEqual([{ u: 2 }]);
    expect(data(await store.readAll({ filter: { eventTypes: [type('Unknown')] } }))).toEqual([]);
    expect(mine(await store.readAll({ filter: {} }))).toHaveLength(4);
  });

  it('appends the same event ids only once, answering with the first result', async () => {
    const s = stream('a');
    const batch = [event(type('E'), { n: 1 }), event(type('E'), { n: 2 })];
    const first = await store.append(s, batch, 'no_stream');
    expect(await store.append(s, batch, 'no_stream')).toEqual(first);
    const single = event(type('E'), { n: 3 });
    const third = await store.append(s, [single], 1);
    expect(await store.append(s, [single], 1)).toEqual(third);
    expect(await store.append(s, [single], 'any')).toEqual(third);
    expect((await store.readStream(s)).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await store.readAll({ filter: { streamPrefixes: [`${tag}-`] } })).toHaveLength(3);
  });

  it('lets exactly one of concurrent appends with the same expected revision succeed', async () => {
    const s = stream('a');
    const creations = await Promise.allSettled([1, 2, 3].map((i) => store.append(s, [event(type('E'), { i })], 'no_stream')));
    expect(creations.filter((r) => r.status === 'fulfilled')).toHaveLength(1);

    const attempts = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => store.append(s, [event(type('E'), { i })], 0)));
    const won = attempts.filter((r) => r.status === 'fulfilled');
    const lost = attempts.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(4);
    for (const r of lost) {
      expect(r.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(r.reason).toMatchObject({ streamId: s, expected: 0, actual: 1 });
    }
    expect(await store.readStream(s)).toHaveLength(2);
  });

  it('subscribes to all: catches up, then delivers live events in order, honouring the filter', async () => {
    const start = await store.headPosition();
    await store.append(stream('sub-1'), [event(type('E'), { n: 1 }), event(type('E'), { n: 2 })], 'no_stream');
    await store.append(stream('other-1'), [event(type('E'), { skip: 1 })], 'no_stream');
    const sub = store.subscribeToAll({ afterPosition: start, filter: { streamPrefixes: [stream('sub-')] } });
    const it = sub[Symbol.asyncIterator]();
    try {
      const caught = await take(it, 2);
      expect(caught.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
      await store.append(stream('other-1'), [event(type('E'), { skip: 2 })], 0);
      const live = await store.append(stream('sub-2'), [event(type('E'), { n: 3 })], 'no_stream');
      await store.append(stream('sub-1'), [event(type('E'), { n: 4 })], 1);
      const more = await take(it, 2);
      expect(more.map((e) => e.data)).toEqual([{ n: 3 }, { n: 4 }]);
      expect(more[0]).toMatchObject({ streamId: stream('sub-2'), revision: 0, position: live.position });
      expect(increasing([...caught, ...more].map((e) => e.position))).toBe(true);
    } finally {
      await sub.close();
    }
    expect(await within(it.next(), 2000, 'the end of the subscription')).toEqual({ done: true, value: undefined });
  });

  it('subscribes to all after a position (exclusive), filtering by event type', async () => {
    const s = stream('a');
    const r1 = await store.append(s, [event(type('A'), { n: 1 })], 'no_stream');
    await store.append(s, [event(type('B'), { n: 2 }), event(type('A'), { n: 3 })], 0);
    const sub = store.subscribeToAll({ afterPosition: r1.position, filter: { eventTypes: [type('A')] } });
    const it = sub[Symbol.asyncIterator]();
    try {
      expect((await take(it, 1)).map((e) => e.data)).toEqual([{ n: 3 }]);
      await store.append(s, [event(type('B'), { n: 4 })], 2);
      await store.append(s, [event(type('A'), { n: 5 })], 3);
      expect((await take(it, 1)).map((e) => e.data)).toEqual([{ n: 5 }]);
    } finally {
      await sub.close();
    }
  });

  it('delivers a long burst of concurrent appends exactly once, as readAll has it, to a subscriber that keeps up and to one that falls behind', async () => {
    const start = await store.headPosition();
    const filter = { streamPrefixes: [stream('burst-')] };
    const live = store.subscribeToAll({ afterPosition: start, filter });
    const late = store.subscribeToAll({ afterPosition: start, filter });
    const liveIt = live[Symbol.asyncIterator]();
    const lateIt = late[Symbol.asyncIterator]();
    const fields = (e: RecordedEvent) => [e.id, e.position, e.streamId, e.revision, e.type, e.data, e.metadata];
    try {
      const collecting = within(take(liveIt, 9000), 60_000, 'the burst');
      for (let round = 0; round < 30; round++) {
        await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            store.append(stream(`burst-${round}-${i}`), [event(type('E'), { round, i }), event(type('F'), { n: [1, 2] }), event(type('E'))], 'no_stream'),
          ),
        );
      }
      const stored = (await store.readAll({ afterPosition: start, filter })).map(fields);
      expect((await collecting).map(fields)).toEqual(stored);
      expect((await within(take(lateIt, 9000), 60_000, 'the burst, late')).map(fields)).toEqual(stored);
    } finally {
      await live.close();
      await late.close();
    }
  }, 120_000);

  it('fails only the append whose data cannot be stored, and keeps appending', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const bad of [{ n: 1n }, cyclic]) await expect(store.append(stream('bad'), [event(type('E'), bad)], 'any')).rejects.toThrow();
    const ok = await within(store.append(stream('good'), [event(type('E'), { n: 1 })], 'no_stream'), 5000, 'the next append');
    expect(ok.nextRevision).toBe(0);
    expect(await store.readStream(stream('bad'))).toEqual([]);
  });

  it('ends a waiting iteration when the subscription is closed', async () => {
    const sub = store.subscribeToAll({ afterPosition: await store.headPosition(), filter: { streamPrefixes: [`${tag}-`] } });
    const received: RecordedEvent[] = [];
    const loop = (async () => {
      for await (const e of sub) received.push(e);
    })();
    await store.append(stream('a'), [event(type('E'))], 'no_stream');
    await waitUntil(() => received.length === 1, 'the live event');
    await sub.close();
    await within(loop, 2000, 'the loop to end');
    await store.append(stream('a'), [event(type('E'))], 0);
    expect(received).toHaveLength(1);
  });

  it('reports the position of the newest event as the head', async () => {
    if (h.empty) expect(await store.headPosition()).toBe(0);
    const r1 = await store.append(stream('a'), [event(type('E'))], 'no_stream');
    const head1 = await store.headPosition();
    const r2 = await store.append(stream('b'), [event(type('E')), event(type('E'))], 'no_stream');
    const head2 = await store.headPosition();
    if (h.exclusive) {
      expect(head1).toBe(r1.position);
      expect(head2).toBe(r2.position);
    } else {
      expect(head1).toBeGreaterThanOrEqual(r1.position);
      expect(head2).toBeGreaterThanOrEqual(r2.position);
    }
  });
}

describe('EventStore contract: SqliteEventStore (embedded)', () => {
  eventStoreContract(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'event-store-contract-'));
    const store = new SqliteEventStore(join(dir, 'events.db'));
    return {
      store,
      empty: true,
      exclusive: true,
      sweepsLog: true,
      dispose: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

const eventStoreDb = eventStoreAvailability();
if ('skip' in eventStoreDb) {
  console.log(`EventStoreDB contract skipped: ${eventStoreDb.skip}`);
  describe.skip('EventStore contract: EventStoreDbEventStore (no server)', () => {
    eventStoreContract(() => Promise.reject(new Error(eventStoreDb.skip)));
  });
} else {
  describe('EventStore contract: EventStoreDbEventStore', () => {
    let server: ExternalServer | undefined;
    // A server given by URL may be shared; a container is this file's alone.
    const exclusive = !process.env.EVENTSTORE_URL;
    let fresh = exclusive;

    beforeAll(async () => {
      const found = await externalEventStore();
      if ('skip' in found) throw new Error(`EventStoreDB unavailable: ${found.skip}`);
      server = found;
    }, 180_000);

    afterAll(async () => {
      await server?.stop();
    });

    eventStoreContract(async () => {
      const store = new EventStoreDbEventStore(server!.url);
      const empty = fresh;
      fresh = false;
      return { store, empty, exclusive, sweepsLog: false, dispose: () => store.close() };
    });
  });
}
