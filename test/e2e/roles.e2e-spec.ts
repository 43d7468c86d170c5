import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN } from '../support/child-server.js';

it('refuses ROLE=edge on the embedded store at start-up, with one line that says why, before touching the store', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'role-edge-'));
  try {
    const env = { PATH: process.env.PATH, PORT: '0', DATA_DIR: dataDir, ROLE: 'edge' };
    const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(err.trim().split('\n').at(-1)).toMatch(/^start-up failed: ROLE=edge needs EVENTSTORE_URL and MONGODB_URL: the embedded store \(a SQLite file in DATA_DIR\) serves one process only/);
    expect(existsSync(join(dataDir, 'authserver.db'))).toBe(false);
    expect(readdirSync(dataDir)).toEqual([]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
