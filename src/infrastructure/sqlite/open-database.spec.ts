import { openDatabase, SQLITE_DRIVER } from './open-database.js';

describe('the SQLite driver', () => {
  it('is better-sqlite3 13 where Node-API 10 is there, 12 elsewhere (Node 20)', () => {
    const napi10 = Number(process.versions.napi) >= 10;
    expect(SQLITE_DRIVER).toContain(napi10 ? '/better-sqlite3-napi/' : '/better-sqlite3/');
    const db = openDatabase(':memory:', false);
    expect(db.prepare('SELECT 1 + 1 AS two').get()).toEqual({ two: 2 });
    db.close();
  });
});
