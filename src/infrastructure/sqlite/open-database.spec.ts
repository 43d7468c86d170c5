import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp-dir.js';
import { lockStoreFile, openDatabase, SQLITE_DRIVER } from './open-database.js';

describe('the SQLite driver', () => {
  it('is better-sqlite3 13 where Node-API 10 is there, 12 elsewhere (Node 20)', () => {
    const napi10 = Number(process.versions.napi) >= 10;
    expect(SQLITE_DRIVER).toContain(napi10 ? '/better-sqlite3-napi/' : '/better-sqlite3/');
    const db = openDatabase(':memory:', false);
    expect(db.prepare('SELECT 1 + 1 AS two').get()).toEqual({ two: 2 });
    db.close();
  });
});

describe('the store file lock', () => {
  it('is held by one store at a time in this process, until let go', () => {
    const file = join(tempDir('lock-'), 'store.db');
    const unlock = lockStoreFile(file);
    expect(() => lockStoreFile(file)).toThrow(/in use by another server process/);
    unlock();
    lockStoreFile(file)();
  });

  it('names the file it could not open', () => {
    const file = join(tempDir('lock-'), 'store.db');
    mkdirSync(`${file}.lock`);
    expect(() => lockStoreFile(file)).toThrow(`${file}.lock: unable to open database file`);
    mkdirSync(file);
    expect(() => openDatabase(file, true)).toThrow(`${file}: unable to open database file`);
  });

  it('keeps another process out, and is free again once the holder is killed (kill -9)', async () => {
    const built = join(process.cwd(), 'dist/src/infrastructure/sqlite/open-database.js');
    if (!existsSync(built)) throw new Error('build first (npm run build)');
    const file = join(tempDir('lock-'), 'store.db');
    // The holder keeps the function it got (a connection garbage-collected closes, lock and all), and collects garbage before it says so.
    const script = `globalThis.unlock = (await import(${JSON.stringify(built)})).lockStoreFile(${JSON.stringify(file)}); gc(); console.log('locked'); setInterval(() => {}, 1000);`;
    const holder = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script]);
    const gone = new Promise((r) => holder.once('exit', r));
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', () => resolve());
        holder.on('exit', () => reject(new Error('the holder exited')));
      });
      expect(() => lockStoreFile(file)).toThrow(/in use by another server process/);
    } finally {
      holder.kill('SIGKILL');
      await gone;
    }
    lockStoreFile(file)();
  });
});
