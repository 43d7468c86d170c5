import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp-dir.js';
import type { Decider, DomainEvent } from '../../domain/shared/decider.js';
import { AggregateStore } from './aggregate-store.js';
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
