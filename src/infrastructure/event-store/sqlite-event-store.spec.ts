import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { tempDir } from '../../../test/support/temp-dir.js';
import { type EventData, type RecordedEvent, StoreOutcomeUnknownError, StoreUnavailableError } from './event-store.port.js';
import { SqliteEventStore, writerError } from './sqlite-event-store.js';

describe('the embedded store: what a failed append tells its caller', () => {
  const failed = (code: string) => writerError({ kind: 'failed', message: 'disk I/O error', code });

  it('that the outcome is unknown when the commit failed after the transaction was written (the sync, the WAL index after it)', () => {
    for (const code of ['SQLITE_IOERR_FSYNC', 'SQLITE_IOERR_SHMSIZE', 'SQLITE_IOERR_SHMMAP']) expect(failed(code)).toBeInstanceOf(StoreOutcomeUnknownError);
  });

  it('to try later when the write was refused, and nothing was recorded (a full disk, a failed write)', () => {
    for (const code of ['SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR', 'SQLITE_READONLY', 'SQLITE_BUSY']) {
      const error = failed(code);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).not.toBeInstanceOf(StoreOutcomeUnknownError);
    }
  });

  it('nothing of the kind for a store that is broken (a corrupt file)', () => {
    const error = failed('SQLITE_CORRUPT');
    expect(error).not.toBeInstanceOf(StoreUnavailableError);
    expect(error).not.toBeInstanceOf(StoreOutcomeUnknownError);
  });
});

describe('the embedded store: a filtered subscription', () => {
  const event = (type: string): EventData => ({ id: randomUUID(), type, data: {}, metadata: { actor: 'system', correlationId: randomUUID(), occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 } });
  const turns = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };

  it('reads on from where its last read ended, not from its last match, and still gets the next match', async () => {
    const store = new SqliteEventStore(join(tempDir('subscription-'), 'e.db'));
    const reads = jest.spyOn(store as unknown as { recentAfter(after: number, limit: number): RecordedEvent[] | undefined }, 'recentAfter');
    const sub = store.subscribeToAll({ filter: { eventTypes: ['Rare'] } });
    const got: RecordedEvent[] = [];
    const loop = (async () => {
      for await (const e of sub) got.push(e);
    })();
    try {
      const positions: number[] = [];
      for (let i = 0; i < 3; i++) {
        positions.push((await store.append(`common-${i}`, [event('Common')], 'no_stream')).position);
        await turns();
      }
      // Each read after an append starts past the events the one before it passed over.
      expect(reads.mock.calls.slice(-2).map(([after]) => after)).toEqual(positions.slice(0, 2));
      const rare = await store.append('rare', [event('Rare')], 'no_stream');
      await turns();
      expect(reads.mock.calls.at(-1)![0]).toBe(positions[2]);
      expect(got.map((e) => e.position)).toEqual([rare.position]);
    } finally {
      await sub.close();
      await loop;
      await store.close();
    }
  });
});

describe('the embedded store: expired streams', () => {
  const event = (type: string): EventData => ({ id: randomUUID(), type, data: {}, metadata: { actor: 'system', correlationId: randomUUID(), occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 } });

  it('sweeps at most `limit` streams a time, the earliest expiries first, and only those due', async () => {
    const store = new SqliteEventStore(join(tempDir('sweep-'), 'e.db'));
    try {
      for (const [name, at] of [['a', 3000], ['b', 1000], ['c', 2000], ['d', 9000]] as const) {
        await store.append(name, [event('E')], 'no_stream');
        await store.expireStream(name, at);
      }
      expect(await store.sweepExpired(5000, 2)).toBe(2);
      expect((await store.readAll()).map((e) => e.streamId)).toEqual(['a', 'd']);
      expect(await store.sweepExpired(5000, 2)).toBe(1);
      expect(await store.sweepExpired(5000, 2)).toBe(0);
      expect((await store.readAll()).map((e) => e.streamId)).toEqual(['d']);
    } finally {
      await store.close();
    }
  });

  it('takes marks given while a batch is under way with the next batch, or on their own after it', async () => {
    const store = new SqliteEventStore(join(tempDir('sweep-'), 'e.db'));
    try {
      await store.append('a', [event('E')], 'no_stream');
      await store.append('b', [event('E')], 'no_stream');
      const first = store.append('c', [event('E')], 'no_stream');
      const marked = store.expireStream('a', 1);
      const second = store.append('d', [event('E')], 'no_stream');
      const alone = store.expireStream('b', 1);
      await Promise.all([first, marked, second, alone]);
      expect(await store.sweepExpired(2, 10)).toBe(2);
      expect((await store.readAll()).map((e) => e.streamId)).toEqual(['c', 'd']);
    } finally {
      await store.close();
    }
  });

  it('never gives a swept position again, before or after a restart; a swept stream reads as absent to the writer too', async () => {
    const file = join(tempDir('sweep-'), 'e.db');
    let store = new SqliteEventStore(file);
    const kept = await store.append('kept', [event('E')], 'no_stream');
    const swept = await store.append('swept', [event('E'), event('E')], 'no_stream');
    await store.expireStream('swept', 1);
    expect(await store.sweepExpired(2, 10)).toBe(1);
    const again = await store.append('swept', [event('E')], 'no_stream');
    expect(again).toEqual({ nextRevision: 0, position: swept.position + 1 });
    await store.expireStream('swept', 1);
    expect(await store.sweepExpired(2, 10)).toBe(1);
    await store.close();
    store = new SqliteEventStore(file);
    try {
      expect(await store.headPosition()).toBe(kept.position);
      expect((await store.append('next', [event('E')], 'no_stream')).position).toBe(again.position + 1);
    } finally {
      await store.close();
    }
  });
});

describe('the embedded store: appends to several streams together', () => {
  const event = (type: string): EventData => ({ id: randomUUID(), type, data: {}, metadata: { actor: 'system', correlationId: randomUUID(), occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 } });

  it('writes all of them in one commit, in the order given, and a subscriber sees them so', async () => {
    const store = new SqliteEventStore(join(tempDir('together-'), 'e.db'));
    const sub = store.subscribeToAll();
    try {
      const results = await store.appendTogether([
        { streamId: 'claim', events: [event('Claimed')], expected: 'no_stream' },
        { streamId: 'record', events: [event('Recorded'), event('Recorded')], expected: 'any' },
      ]);
      expect(results).toEqual([
        { nextRevision: 0, position: 1 },
        { nextRevision: 1, position: 3 },
      ]);
      const it = sub[Symbol.asyncIterator]();
      const seen = [];
      for (let i = 0; i < 3; i++) seen.push(((await it.next()).value as RecordedEvent).streamId);
      expect(seen).toEqual(['claim', 'record', 'record']);
    } finally {
      await sub.close();
      await store.close();
    }
  });

  it('writes none of them when one is refused, leaves the appends beside them in the batch alone, and the refused ones can be made afterwards', async () => {
    const store = new SqliteEventStore(join(tempDir('together-'), 'e.db'));
    try {
      // `taken` goes first, in a batch of its own; the rest wait for it and go in the next one.
      const taken = store.append('taken', [event('Claimed')], 'no_stream');
      const before = store.append('before', [event('E')], 'no_stream');
      const pair = store.appendTogether([
        { streamId: 'record', events: [event('Recorded')], expected: 'no_stream' },
        { streamId: 'taken', events: [event('Claimed')], expected: 'no_stream' },
      ]);
      const after = store.append('after', [event('E')], 'no_stream');
      await expect(pair).rejects.toMatchObject({ name: 'WrongExpectedRevisionError', streamId: 'taken' });
      await Promise.all([taken, before, after]);
      expect((await store.readAll()).map((e) => e.streamId)).toEqual(['taken', 'before', 'after']);
      // The refused pair moved no stream's head: `record` is still a stream that does not exist.
      expect(await store.append('record', [event('Recorded')], 'no_stream')).toMatchObject({ nextRevision: 0 });
    } finally {
      await store.close();
    }
  });
});
