import { jest } from '@jest/globals';
import type { CachingReadStore } from './caching-read-store.js';
import { type ChangeCursor, type ViewChange, VIEW_CHANGES_KEEP_MS } from './read-store.port.js';
import { ViewSync } from './view-sync.js';

/** The part of the cache ViewSync uses, over a change log the test writes. */
function fakeCache() {
  const log: ViewChange[] = [];
  const evicted: string[] = [];
  let forgotten = 0;
  const state = { folded: 0, reads: 0 };
  const after = (c: ChangeCursor, e: ViewChange) => e.fence > c.fence || (e.fence === c.fence && e.position > c.position);
  const cache = {
    changesAfter: async (c: ChangeCursor, limit: number) => log.filter((e) => after(c, e)).slice(0, limit),
    lastChange: async () => (log.length ? { fence: log[log.length - 1].fence, position: log[log.length - 1].position } : { fence: 0, position: 0 }),
    evict: (view: string, ids: readonly string[]) => evicted.push(...ids.map((id) => `${view}/${id}`)),
    forgetAll: () => void forgotten++,
    viewState: async () => {
      state.reads++;
      return { position: state.folded, version: 1 };
    },
  };
  return { cache: cache as unknown as CachingReadStore, log, evicted, forgotten: () => forgotten, state };
}

describe('ViewSync', () => {
  afterEach(() => jest.useRealTimers());

  it('evicts what the folding process logged, every everyMs, starting from the end of the log', async () => {
    jest.useFakeTimers();
    const { cache, log, evicted } = fakeCache();
    log.push({ fence: 1, position: 5, view: 'users', ids: ['old'] });
    const sync = new ViewSync(cache, () => 0, 1000);
    await sync.follow();
    log.push({ fence: 1, position: 9, view: 'users', ids: ['acme/u1'] }, { fence: 2, position: 7, view: 'clients', ids: ['acme/c1'] });
    await jest.advanceTimersByTimeAsync(999);
    expect(evicted).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(evicted).toEqual(['users/acme/u1', 'clients/acme/c1']);
    sync.stop();
  });

  it('forgets the whole cache when the log shows a new writer (a takeover)', async () => {
    const { cache, log, forgotten } = fakeCache();
    log.push({ fence: 1, position: 5, view: 'users', ids: ['u1'] });
    const sync = new ViewSync(cache, () => 0, 0);
    await sync.follow();
    const before = forgotten();
    log.push({ fence: 1, position: 6, view: 'users', ids: ['u1'] });
    await sync.catchUp();
    expect(forgotten()).toBe(before);
    log.push({ fence: 2, position: 6, view: 'users', ids: ['u2'] });
    await sync.catchUp();
    expect(forgotten()).toBe(before + 1);
  });

  it('reaches a position once the shared checkpoint has passed it and the cache has caught up; one already reached costs no read', async () => {
    const { cache, log, evicted, state } = fakeCache();
    state.folded = 10;
    const sync = new ViewSync(cache, () => 0, 0);
    await sync.follow();
    const reads = state.reads;
    await sync.reach(['users'], 10, Date.now() + 1000);
    expect(state.reads).toBe(reads);

    log.push({ fence: 1, position: 12, view: 'users', ids: ['u1'] });
    state.folded = 12;
    await sync.reach(['users'], 12, Date.now() + 1000);
    expect(evicted).toEqual(['users/u1']);
    await expect(sync.reach(['users'], 13, Date.now() + 20)).rejects.toThrow('did not reach position 13');
  });

  it('does nothing while this process folds (its cache is the writer)', async () => {
    const { cache, log, evicted } = fakeCache();
    const sync = new ViewSync(cache, () => 0, 0);
    await sync.follow();
    sync.lead();
    log.push({ fence: 1, position: 9, view: 'users', ids: ['u1'] });
    await sync.catchUp();
    expect(evicted).toEqual([]);
  });

  it('forgets the whole cache when it has not caught up for longer than the log is sure to keep', async () => {
    const { cache, log, evicted, forgotten } = fakeCache();
    let now = 0;
    const sync = new ViewSync(cache, () => now, 0);
    await sync.follow();
    const before = forgotten();
    log.push({ fence: 1, position: 9, view: 'users', ids: ['u1'] });
    now += VIEW_CHANGES_KEEP_MS / 2;
    await sync.catchUp();
    expect(forgotten()).toBe(before + 1);
    expect(evicted).toEqual([]);
    log.push({ fence: 1, position: 10, view: 'users', ids: ['u2'] });
    await sync.catchUp();
    expect(evicted).toEqual(['users/u2']);
  });
  it('waits again for a new writer that rebuilds the views: their checkpoint went back, and so does what a wait may pass on', async () => {
    const { cache, log, state } = fakeCache();
    state.folded = 50;
    const sync = new ViewSync(cache, () => 0, 0);
    await sync.follow();
    await sync.reach(['users'], 40, Date.now() + 1000);
    // A takeover by a build that rebuilds: the shared checkpoint starts again from the beginning.
    state.folded = 0;
    log.push({ fence: 2, position: 3, view: 'users', ids: ['u1'] });
    await sync.catchUp();
    await expect(sync.reach(['users'], 40, Date.now() + 20)).rejects.toThrow('did not reach position 40');
    state.folded = 45;
    await sync.reach(['users'], 40, Date.now() + 1000);
  });
});
