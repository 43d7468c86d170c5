import { jest } from '@jest/globals';
import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp-dir.js';
import { CachingReadStore } from './caching-read-store.js';
import { SqliteReadStore } from './sqlite-read-store.js';
import { CACHED_VIEWS } from './cached-views.js';

describe('the views served from memory', () => {
  it('include resources, which the proxy reads on every request', async () => {
    const inner = new SqliteReadStore(join(tempDir('cached-views-'), 'r.db'));
    const store = new CachingReadStore(inner, CACHED_VIEWS);
    await store.prepareView('resources', 1, []);
    await store.commit('resources', [{ id: 't/api', doc: { upstreamUrl: 'http://127.0.0.1:1' }, position: 1 }], 1);
    const reads = jest.spyOn(inner, 'get');
    for (let i = 0; i < 3; i++) expect((await store.get<{ upstreamUrl: string }>('resources', 't/api'))?.upstreamUrl).toBe('http://127.0.0.1:1');
    expect(reads).not.toHaveBeenCalled();
    await store.close();
  });
});
