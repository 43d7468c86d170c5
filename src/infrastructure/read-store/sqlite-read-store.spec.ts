import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp-dir.js';
import { SqliteReadStore } from './sqlite-read-store.js';

/** The SQL of every statement the store prepares from now on. */
function recordSql(store: SqliteReadStore): string[] {
  const seen: string[] = [];
  const target = store as unknown as { stmt(sql: string): unknown };
  const original = target.stmt.bind(store);
  target.stmt = (sql: string) => {
    seen.push(sql);
    return original(sql);
  };
  return seen;
}

describe('sqlite read store: key-range pages', () => {
  it('starts a page after a cursor inside the prefix at the cursor, the only lower bound of its range', async () => {
    const store = new SqliteReadStore(join(tempDir('ranges-'), 'r.db'));
    await store.prepareView('docs', 1, [{ fields: ['tenant', 'key'] }]);
    const docs = ['a', 'b', 'c', 'd'].map((k, i) => ({ id: `t1/${k}`, doc: { tenant: 't1', key: `k${k}` }, position: i + 1 }));
    await store.commit('docs', docs, 4);
    const sql = recordSql(store);
    try {
      const byId = await store.find('docs', {}, { idPrefix: 't1/', afterId: 't1/b', sortBy: '_id', limit: 10 });
      const byKey = await store.find('docs', { tenant: 't1' }, { fieldPrefix: { field: 'key', prefix: 'k', after: 'kc' }, sortBy: 'key', limit: 10 });

      expect(byId.map((d) => d._id)).toEqual(['t1/c', 't1/d']);
      expect(byKey.map((d) => d._id)).toEqual(['t1/d']);
      // SQLite seeks by one lower bound and filters by the others: with the prefix's as well, a
      // deep page would walk the whole range before the cursor.
      expect(sql[0]).toMatch(/WHERE id > \? AND id < \?/);
      expect(sql[0]).not.toMatch(/id >= \?/);
      expect(sql[1]).not.toMatch(/\.key'\) >= \?/);
    } finally {
      await store.close();
    }
  });
});
