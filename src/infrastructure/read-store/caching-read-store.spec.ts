import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp-dir.js';
import { CachingReadStore } from './caching-read-store.js';
import { SqliteReadStore } from './sqlite-read-store.js';

describe('caching read store', () => {
  it('serves cached views from memory, keeps what it writes, and never returns a document older than the last write', async () => {
    const inner = new SqliteReadStore(join(tempDir('cache-'), 'r.db'));
    const store = new CachingReadStore(inner, ['clients']);
    await store.prepareView('clients', 1, []);
    await store.commit('clients', [{ id: 'a', doc: { n: 1 }, position: 1 }], 1);
    expect(await store.get('clients', 'a')).toEqual({ n: 1, _id: 'a', _position: 1 });
    await inner.commit('clients', [{ id: 'a', doc: { n: 99 }, position: 2 }], 2);
    expect((await store.get<{ n: number }>('clients', 'a'))?.n).toBe(1);
    await store.commit('clients', [{ id: 'a', doc: { n: 2 }, position: 3 }], 3);
    expect((await store.get<{ n: number }>('clients', 'a'))?.n).toBe(2);

    const racing = store.get('clients', 'b');
    await store.commit('clients', [{ id: 'b', doc: { n: 3 }, position: 4 }], 4);
    expect(await racing).toBeNull();
    expect((await store.get<{ n: number }>('clients', 'b'))?.n).toBe(3);

    await inner.commit('clients', [{ id: 'c', doc: { n: 5 }, position: 5 }], 5);
    const many = await store.getMany<{ n: number }>('clients', ['a', 'b', 'c', 'd']);
    expect([...many].map(([id, d]) => [id, d.n])).toEqual([['a', 2], ['b', 3], ['c', 5]]);

    await store.resetView('clients', 2);
    expect(await store.get('clients', 'a')).toBeNull();
    await store.close();
  });

  it('logs the cached documents each commit changed, with the fence and the time, for the caches of other processes; not where none can read the store', async () => {
    const file = join(tempDir('cache-'), 'r.db');
    const inner = new SqliteReadStore(file);
    const store = new CachingReadStore(inner, ['clients'], () => 1234);
    await store.prepareView('clients', 1, []);
    await store.prepareView('audit', 1, []);
    await store.commitAll([
      { view: 'clients', writes: [{ id: 'a', doc: { n: 1 }, position: 7 }], checkpoint: 7 },
      { view: 'audit', writes: [{ id: 'x', doc: { n: 1 }, position: 7 }], checkpoint: 7 },
    ]);
    expect(await store.changesAfter({ fence: 0, position: 0 }, 10)).toEqual([{ fence: 0, position: 7, view: 'clients', ids: ['a'] }]);

    const alone = new CachingReadStore(inner, ['clients'], () => 1234, false);
    await alone.commit('clients', [{ id: 'b', doc: { n: 2 }, position: 8 }], 8);
    expect(await alone.lastChange()).toEqual({ fence: 0, position: 7 });
    await store.close();
  });
});
