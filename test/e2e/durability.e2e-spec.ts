import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allProjections } from '../../projections/index.js';
import { SqliteEventStore } from '../../src/infrastructure/event-store/sqlite-event-store.js';
import { ProjectionRunner } from '../../src/infrastructure/read-store/projection-runner.js';
import { SqliteReadStore } from '../../src/infrastructure/read-store/sqlite-read-store.js';
import { exited, startChild, stopChild } from '../support/child-server.js';
import { freePort, SERVICE_SECRET } from '../support/server.js';

/**
 * Runs the built server (`dist/`, made by the test script) as a child process, kills it with
 * SIGKILL in the middle of a stream of token requests, and checks that every acknowledged
 * token survived, that the views resumed, and that they equal a rebuild from position 0.
 */
const BOOTSTRAP = `
tenants:
  - id: acme
    clients:
      - client_id: service
        client_secret: "${SERVICE_SECRET}"
        grant_types: [client_credentials]
        scope: "orders:read"
`;
const basic = 'Basic ' + Buffer.from(`service:${SERVICE_SECRET}`).toString('base64');

let dataDir: string;
let env: NodeJS.ProcessEnv;
let base: string;

const start = () => startChild(env, `${base}/acme/.well-known/openid-configuration`).then((s) => s.child);

function token(): Promise<Response> {
  return fetch(`${base}/acme/token`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
}

async function dumpViews(): Promise<Record<string, unknown[]>> {
  const reads = new SqliteReadStore(join(dataDir, 'authserver.db'));
  const out: Record<string, unknown[]> = {};
  for (const p of allProjections) out[p.view] = await reads.find(p.view, {}, { sortBy: '_id' });
  await reads.close();
  return out;
}

async function head(): Promise<number> {
  const events = new SqliteEventStore(join(dataDir, 'authserver.db'));
  const h = await events.headPosition();
  await events.close();
  return h;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'authserver-kill-'));
  writeFileSync(join(dataDir, 'bootstrap.yaml'), BOOTSTRAP);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = { ...process.env, PORT: String(port), PUBLIC_URL: base, DATA_DIR: dataDir, BOOTSTRAP_FILE: join(dataDir, 'bootstrap.yaml'), LOG_LEVEL: 'error' };
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function introspect(accessToken: string): Promise<{ active: boolean }> {
  return fetch(`${base}/acme/introspect`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${accessToken}`,
  }).then((r) => r.json() as Promise<{ active: boolean }>);
}

it('loses no acknowledged event on kill -9, resumes the views, and matches a rebuild', async () => {
  const first = await start();
  const acknowledged: string[] = [];
  const worker = async () => {
    while (first.signalCode === null) {
      try {
        const res = await token();
        if (res.status !== 200) continue;
        acknowledged.push(((await res.json()) as { access_token: string }).access_token);
        if (acknowledged.length === 400) first.kill('SIGKILL');
      } catch {
        return; // the connection died with the server
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await exited(first);
  expect(acknowledged.length).toBeGreaterThanOrEqual(400);

  const second = await start();
  const lost: string[] = [];
  for (const t of acknowledged) if (!(await introspect(t)).active) lost.push(t);
  await stopChild(second);
  expect(lost).toEqual([]);

  const live = await dumpViews();
  const events = new SqliteEventStore(join(dataDir, 'authserver.db'));
  const reads = new SqliteReadStore(join(dataDir, 'authserver.db'));
  await new ProjectionRunner(events, reads, allProjections).rebuild();
  await events.close();
  await reads.close();
  expect(await dumpViews()).toEqual(live);

  const before = await head();
  await stopChild(await start());
  expect(await head()).toBe(before);
});
