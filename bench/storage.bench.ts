/**
 * Bytes at rest per token, in the embedded store as shipped.
 *
 *   npm run bench:storage                   # 5,000 client_credentials tokens
 *   npm run bench:storage -- --tokens 20000
 *
 * The server (`node dist/src/main.js`) starts on a fresh data directory with the bench
 * bootstrap file; it issues a first batch of tokens (so that every table and index exists and
 * has pages to spare), stops, and the file's pages are counted per table and index (SQLite's
 * `dbstat`); then it issues the measured batch, stops again, and the difference, divided by the
 * number of tokens, is what one token costs. Both the pages (what the disk holds) and the
 * payload (the bytes of the rows and index keys, without the pages' free space) are shown.
 */
import { createRequire } from 'node:module';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { numberFlag, readFlags } from './args.js';
import { CLIENT_ID, CLIENT_SECRET, TENANT } from './oauth-fixtures.js';
import { HttpConnection } from './oauth-http.js';
import { startOurs } from './oauth-servers.js';

const USAGE = 'usage: node dist/bench/storage.bench.js [--tokens N]';
const require = createRequire(import.meta.url);

interface Usage {
  pages: number;
  payload: number;
}

type Tables = Map<string, Usage>;

function measure(file: string): Tables {
  const Database = require('better-sqlite3') as typeof import('better-sqlite3');
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT name, SUM(pgsize) AS pages, SUM(payload) AS payload FROM dbstat GROUP BY name').all() as Array<{ name: string; pages: number; payload: number }>;
    return new Map(rows.map((r) => [r.name, { pages: r.pages, payload: r.payload }]));
  } finally {
    db.close();
  }
}

async function issue(port: number, count: number): Promise<void> {
  const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
  const connections = Array.from({ length: 8 }, () => new HttpConnection('127.0.0.1', port));
  let next = 0;
  await Promise.all(
    connections.map(async (http) => {
      while (next < count) {
        next++;
        const res = await http.request('POST', `/${TENANT}/token`, { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials&scope=api%3Aread');
        if (res.status !== 200) throw new Error(`token: ${res.status} ${res.body}`);
      }
      http.close();
    }),
  );
}

async function run(tokens: number): Promise<void> {
  let dataDir: string | undefined;
  const round = async (count: number) => {
    const server = await startOurs({ profile: false, keepData: true, dataDir });
    dataDir = server.dataDir;
    try {
      await issue(server.port, count);
    } finally {
      await server.stop();
    }
    return measure(join(server.dataDir, 'authserver.db'));
  };
  try {
    const before = await round(Math.max(1000, Math.floor(tokens / 5)));
    const after = await round(tokens);
    const names = [...new Set([...before.keys(), ...after.keys()])].sort();
    const lines: string[] = [];
    let pages = 0;
    let payload = 0;
    for (const name of names) {
      const a = after.get(name) ?? { pages: 0, payload: 0 };
      const b = before.get(name) ?? { pages: 0, payload: 0 };
      const dp = (a.pages - b.pages) / tokens;
      const dl = (a.payload - b.payload) / tokens;
      pages += dp;
      payload += dl;
      if (Math.abs(dp) >= 1 || Math.abs(dl) >= 1) lines.push(`${name.padEnd(44)} ${dp.toFixed(0).padStart(8)} ${dl.toFixed(0).padStart(9)}`);
    }
    console.log(`bytes per client_credentials token (${tokens} tokens)`);
    console.log(`${'table or index'.padEnd(44)} ${'pages'.padStart(8)} ${'payload'.padStart(9)}`);
    for (const line of lines) console.log(line);
    console.log(`${'total'.padEnd(44)} ${pages.toFixed(0).padStart(8)} ${payload.toFixed(0).padStart(9)}`);
  } finally {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

const flags = readFlags(process.argv.slice(2), { tokens: 'string' }, USAGE);
await run(numberFlag(flags.tokens, 'tokens', 5_000, 100, true));
