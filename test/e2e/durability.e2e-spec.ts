import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allProjections } from '../../projections/index.js';
import { SqliteEventStore } from '../../src/infrastructure/event-store/sqlite-event-store.js';
import { ProjectionRunner } from '../../src/infrastructure/read-store/projection-runner.js';
import { SqliteReadStore } from '../../src/infrastructure/read-store/sqlite-read-store.js';
import { exited, MAIN, startChild, stopChild } from '../support/child-server.js';
import { expectResponseMatches } from '../support/openapi.js';
import { freePort, SERVICE_SECRET } from '../support/server.js';

/**
 * Runs the built server (`dist/`, made by the test script) as a child process, kills it with
 * SIGKILL in the middle of a stream of token requests, and checks that every acknowledged
 * token survived, that the views resumed, and that they equal a rebuild from position 0.
 * Then fills its disk (a file size limit) under the same stream of requests.
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
const dataDirs: string[] = [];

/** Every server started, so that a failed test leaves none running. */
const started: ChildProcess[] = [];
const start = ({ env: serverEnv = env, fileSizeLimitKb }: { fileSizeLimitKb?: number; env?: NodeJS.ProcessEnv } = {}) =>
  startChild(serverEnv, `http://127.0.0.1:${serverEnv.PORT}/acme/.well-known/openid-configuration`, { fileSizeLimitKb }).then((s) => {
    started.push(s.child);
    return s.child;
  });
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** The next server starts on an empty data directory of its own. */
async function useNewDataDir(): Promise<void> {
  dataDir = mkdtempSync(join(tmpdir(), 'authserver-kill-'));
  dataDirs.push(dataDir);
  writeFileSync(join(dataDir, 'bootstrap.yaml'), BOOTSTRAP);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = { ...process.env, PORT: String(port), PUBLIC_URL: base, DATA_DIR: dataDir, BOOTSTRAP_FILE: join(dataDir, 'bootstrap.yaml'), LOG_LEVEL: 'error' };
}

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

beforeAll(useNewDataDir);
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function introspect(accessToken: string): Promise<{ status: number; body: { active?: boolean; error?: string } }> {
  const res = await fetch(`${base}/acme/introspect`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${accessToken}`,
  });
  return { status: res.status, body: (await res.json()) as { active?: boolean; error?: string } };
}

/** The tokens among `tokens` that the running server does not introspect as active. */
async function inactive(tokens: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const t of tokens) if (!(await introspect(t)).body.active) found.push(t);
  return found;
}

/**
 * Token requests on 16 connections until the server goes away; `onAnswer` hears the count of
 * tokens answered so far. `socketErrors`: how each connection ended (refused, reset).
 */
async function tokensUntilGone(server: ChildProcess, onAnswer: (answered: number) => void): Promise<{ answered: string[]; otherStatuses: number[]; socketErrors: string[] }> {
  const answered: string[] = [];
  const otherStatuses: number[] = [];
  const socketErrors: string[] = [];
  const worker = async () => {
    while (server.exitCode === null && server.signalCode === null) {
      try {
        const res = await token();
        if (res.status !== 200) {
          otherStatuses.push(res.status);
          continue;
        }
        answered.push(((await res.json()) as { access_token: string }).access_token);
        onAnswer(answered.length);
      } catch (e) {
        socketErrors.push(String((e as { cause?: { code?: string } }).cause?.code ?? e));
        return; // the connection died with the server
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await exited(server);
  return { answered, otherStatuses, socketErrors };
}

/** The tokens among `tokens` that a restarted server does not introspect as active. */
async function inactiveAfterRestart(tokens: string[]): Promise<string[]> {
  const server = await start();
  const found = await inactive(tokens);
  await stopChild(server);
  return found;
}

it('loses no acknowledged event on kill -9, resumes the views, and matches a rebuild', async () => {
  const first = await start();
  const { answered } = await tokensUntilGone(first, (n) => n === 400 && first.kill('SIGKILL'));
  expect(answered.length).toBeGreaterThanOrEqual(400);
  expect(await inactiveAfterRestart(answered)).toEqual([]);

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

it('drains on SIGTERM: each request that reaches it is served, and each token answered is kept', async () => {
  await useNewDataDir();
  const server = await start();
  // A second server on the same data directory would serve stale views: it refuses to start.
  await expect(start({ env: { ...env, PORT: String(await freePort()) } })).rejects.toThrow(/in use by another server process/);
  const { answered, otherStatuses, socketErrors } = await tokensUntilGone(server, (n) => n === 400 && server.kill('SIGTERM'));
  // No request read is refused; a request racing the close of an idle connection (or the
  // closed listener) fails at the socket, as with any keep-alive server.
  expect(otherStatuses).toEqual([]);
  expect(socketErrors.filter((code) => !['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(code))).toEqual([]);
  expect(server.signalCode).toBe('SIGTERM');
  expect(answered.length).toBeGreaterThanOrEqual(400);
  expect(await inactiveAfterRestart(answered)).toEqual([]);
});

// How long filling the file takes is the machine's throughput; the limit is a net for a hang, not a measure.
it('answers 503 while the disk is full, records exactly the tokens it answered, and resumes once there is room', async () => {
  await useNewDataDir();
  const server = await start({ fileSizeLimitKb: 4096 });
  const answered: string[] = [];
  let refused = 0;
  const unexpected: unknown[] = [];
  const worker = async () => {
    while (refused < 50 && answered.length < 50_000) {
      const res = await token();
      const body = (await res.json()) as { access_token?: string; error?: string };
      if (res.status === 200) answered.push(body.access_token!);
      else {
        refused++;
        const seen = { status: res.status, headers: res.headers, body };
        expectResponseMatches('token', 'POST', '/token', seen);
        if (res.status !== 503 || body.error !== 'temporarily_unavailable') unexpected.push({ status: res.status, body });
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  expect(unexpected).toEqual([]);
  expect(refused).toBeGreaterThanOrEqual(50);
  expect(answered.length).toBeGreaterThan(0);
  // Metadata is still served; introspection waits for views that cannot be written, and says so.
  expect((await fetch(`${base}/acme/.well-known/openid-configuration`)).status).toBe(200);
  const during = await introspect(answered[answered.length - 1]);
  expect(during.status === 503 ? during.body.error : during.body.active).toBe(during.status === 503 ? 'temporarily_unavailable' : true);

  // Room again: the next request is served, and so is every token answered before.
  execFileSync('prlimit', ['--pid', String(server.pid), '--fsize=unlimited']);
  let after: Response | undefined;
  for (let i = 0; i < 50 && after?.status !== 200; i++) {
    if (i) await new Promise((r) => setTimeout(r, 100));
    after = await token();
  }
  expect(after?.status).toBe(200);
  answered.push(((await after!.json()) as { access_token: string }).access_token);
  expect(await inactive(answered)).toEqual([]);
  await stopChild(server);

  // One event for each token answered, none for the refused requests.
  const events = new SqliteEventStore(join(dataDir, 'authserver.db'));
  const issued = await events.readAll({ filter: { eventTypes: ['AccessTokenIssued'] } });
  await events.close();
  expect(issued.length).toBe(answered.length);
  // The client's token stream has no gap: a batch that failed moved no revision.
  expect(issued.map((e) => e.revision)).toEqual(issued.map((_, i) => i));
}, 180_000);

it('ends its log with one line that says why it could not start, naming the file', async () => {
  await useNewDataDir();
  // The store's lock file cannot be opened: a directory stands where it goes.
  mkdirSync(join(dataDir, 'authserver.db.lock'));
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise((r) => child.once('exit', r));
  expect(code).toBe(1);
  expect(err.trim().split('\n').at(-1)).toBe(`start-up failed: ${join(dataDir, 'authserver.db.lock')}: unable to open database file`);
});

/** A server with a request that has not finished arriving, which holds a graceful stop back (for the idle timeout). */
async function serverWithStalledRequest(): Promise<{ server: ChildProcess; socket: Socket }> {
  await useNewDataDir();
  const server = await start();
  const socket = connect(Number(env.PORT), '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  socket.on('error', () => undefined);
  socket.write('POST /acme/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant_type=');
  await new Promise((r) => setTimeout(r, 200));
  return { server, socket };
}

it('takes no fault (SIGBUS) for a request to stop: it ends at once, not after the requests under way', async () => {
  const { server, socket } = await serverWithStalledRequest();
  const sent = Date.now();
  server.kill('SIGBUS');
  await exited(server);
  socket.destroy();
  expect(server.signalCode).toBe('SIGBUS');
  expect(Date.now() - sent).toBeLessThan(3000);
});

it('stops at once on a second SIGTERM while the first waits for a request still arriving', async () => {
  const { server, socket } = await serverWithStalledRequest();
  const sent = Date.now();
  server.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  expect({ exitCode: server.exitCode, signalCode: server.signalCode }).toEqual({ exitCode: null, signalCode: null });
  server.kill('SIGTERM');
  await exited(server);
  socket.destroy();
  expect(server.exitCode).toBe(1);
  expect(Date.now() - sent).toBeLessThan(3000);
});
