/**
 * Back-channel logout under load: sessions ended as fast as the server takes them (or at
 * `--rate` a second), a logout token for each delivered to one of 5 receivers on loopback, one
 * of which answers 503 half the time; meanwhile the token endpoint (client_credentials) is
 * driven from a child process, and its rate compared with the rate it has without that load.
 *
 *   npm run bench:delivery                         # 10,000 sessions, as fast as possible
 *   npm run bench:delivery -- --sessions 5000 --rate 1000
 *
 * Options: --sessions N (default 10000), --rate R (session ends a second; 0: as fast as the
 * server takes them, 64 at a time; default 0), --duration S (each token-endpoint run, default 5),
 * --connections C (token-endpoint connections, default 16), --wait S (how long to wait for the last
 * deliveries after the ends, default 600: the flaky receiver's retries back off).
 *
 * The server runs in this process (so that the sessions can be made and ended through its own
 * command path without a browser sign-in each): the receivers share its event loop too. Lag is
 * the time from the end of a session's `EndSession` command (its `SessionRevoked` appended) to
 * the receiver's answering 200 to a POST for that session.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { numberFlag, readFlags } from './args.js';
import { HttpConnection } from './oauth-http.js';
import { percentile, runLoad, type LoadResult } from './oauth-load.js';
import { freePort } from './oauth-servers.js';

const USAGE = 'usage: npm run bench:delivery -- [--sessions N] [--rate R] [--duration S] [--connections C] [--wait S]';
const TENANT = 'bench';
const SECRET = 'bench-secret-0123456789-0123456789-abcdef';
const RECEIVERS = 5;
const REDIRECT = 'http://127.0.0.1:9999/cb';

interface Receiver {
  server: Server;
  port: number;
  posts: number;
  refused: number;
}

/** 5 receivers; the last one answers 503 to half the POSTs. `onDelivered(sid)` at each 200. */
async function receivers(onDelivered: (sid: string) => void): Promise<Receiver[]> {
  const out: Receiver[] = [];
  for (let i = 0; i < RECEIVERS; i++) {
    const flaky = i === RECEIVERS - 1;
    const r: Receiver = { server: undefined as unknown as Server, port: await freePort(), posts: 0, refused: 0 };
    r.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        r.posts++;
        if (flaky && Math.random() < 0.5) {
          r.refused++;
          res.writeHead(503).end();
          return;
        }
        const token = new URLSearchParams(body).get('logout_token') ?? '';
        const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString() || '{}') as { sid?: string };
        res.writeHead(200).end();
        if (payload.sid) onDelivered(payload.sid);
      });
    });
    await new Promise<void>((resolve) => r.server.listen(r.port, '127.0.0.1', () => resolve()));
    out.push(r);
  }
  return out;
}

function bootstrap(ports: number[]): string {
  const clients = ports
    .map(
      (port, i) => `
      - client_id: rp${i}
        redirect_uris: ["${REDIRECT}"]
        token_endpoint_auth_method: none
        first_party: true
        backchannel_logout_uri: "http://127.0.0.1:${port}/logout"`,
    )
    .join('');
  return `
tenants:
  - id: ${TENANT}
    clients:
      - client_id: service
        client_secret: "${SECRET}"
        grant_types: [client_credentials]
        scope: "api:read"${clients}
`;
}

/** The token endpoint's client_credentials rate, measured from a child process (off this event loop). */
function tokenLoad(port: number, duration: number, connections: number): Promise<LoadResult> {
  const child: ChildProcess = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
    env: { ...process.env, DELIVERY_BENCH_LOAD: JSON.stringify({ port, duration, connections }) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as LoadResult));
    child.once('exit', (code) => reject(new Error(`the load process exited (${code})`)));
  });
}

async function loadChild(): Promise<void> {
  const { port, duration, connections } = JSON.parse(process.env.DELIVERY_BENCH_LOAD!) as { port: number; duration: number; connections: number };
  const clients = Array.from({ length: connections }, () => new HttpConnection('127.0.0.1', port));
  const headers = { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`service:${SECRET}`).toString('base64')}` };
  const r = await runLoad(
    clients,
    async (c) => {
      const res = await c.request('POST', `/${TENANT}/token`, headers, 'grant_type=client_credentials&scope=api%3Aread');
      return res.status === 200 ? true : `status ${res.status}`;
    },
    { warmupMs: 1000, durationMs: duration * 1000 },
  );
  for (const c of clients) c.close();
  process.send!(r, () => process.exit(0));
}

async function main(): Promise<void> {
  const f = readFlags(process.argv.slice(2), { sessions: 'string', rate: 'string', duration: 'string', connections: 'string', wait: 'string' }, USAGE);
  const sessions = numberFlag(f.sessions, 'sessions', 10_000, 1, true);
  const rate = numberFlag(f.rate, 'rate', 0, 0);
  const duration = numberFlag(f.duration, 'duration', 5, 0.5);
  const connections = numberFlag(f.connections, 'connections', 16, 1, true);
  const wait = numberFlag(f.wait, 'wait', 600, 0);

  const revokedAt = new Map<string, number>();
  const lags: number[] = [];
  const flakyLags: number[] = [];
  let delivered = 0;
  let allDelivered!: () => void;
  const done = new Promise<void>((resolve) => (allDelivered = resolve));
  const clientOf = new Map<string, number>();
  const seen = new Set<string>();
  const rs = await receivers((sid) => {
    if (seen.has(sid)) return;
    seen.add(sid);
    const at = revokedAt.get(sid);
    if (at !== undefined) (clientOf.get(sid) === RECEIVERS - 1 ? flakyLags : lags).push(performance.now() - at);
    if (++delivered === sessions) allDelivered();
  });

  const dataDir = mkdtempSync(join(tmpdir(), 'authserver-bench-delivery-'));
  writeFileSync(join(dataDir, 'bootstrap.yaml'), bootstrap(rs.map((r) => r.port)));
  const port = await freePort();
  Object.assign(process.env, { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir, BOOTSTRAP_FILE: join(dataDir, 'bootstrap.yaml'), LOG_LEVEL: 'error' });
  const { startServer } = await import('../src/server.js');
  const { SessionCommands } = await import('../src/auth/sessions/session-commands.js');
  const app = await startServer({ logLevel: 'error', logFormat: 'text', trustProxy: false });
  try {
    const commands = app.get(SessionCommands);
    const now = Math.floor(Date.now() / 1000);
    const ids = Array.from({ length: sessions }, () => randomBytes(16).toString('base64url'));
    console.log(`making ${sessions.toLocaleString('en-US')} sessions, each with a code for one of ${RECEIVERS} clients...`);
    await pool(ids, 64, async (sid, i) => {
      clientOf.set(sid, i % RECEIVERS);
      await commands.run(TENANT, sid, { kind: 'StartSession', tenantId: TENANT, sessionId: sid, userId: 'bench-user', cookieHash: randomBytes(32).toString('base64url'), now }, 'user:bench-user');
      const code = { grantId: randomBytes(12).toString('base64url'), codeHash: randomBytes(32).toString('base64url'), clientId: `rp${i % RECEIVERS}`, redirectUri: REDIRECT, codeChallenge: randomBytes(32).toString('base64url'), codeChallengeMethod: 'S256' as const, scope: ['openid'], issuedAt: now, expiresAt: now + 3600 };
      await commands.run(TENANT, sid, { kind: 'IssueCode', code }, 'user:bench-user');
    });

    const unloaded = await tokenLoad(port, duration, connections);
    console.log(`token endpoint alone: ${Math.round(unloaded.rps).toLocaleString('en-US')} req/s (p50 ${unloaded.p50.toFixed(1)} ms, p99 ${unloaded.p99.toFixed(1)} ms, ${unloaded.errors} errors)`);

    console.log(`ending them${rate ? ` at ${rate}/s` : ' as fast as the server takes them'}, with the token endpoint under load meanwhile...`);
    const loaded = tokenLoad(port, duration, connections);
    const start = performance.now();
    const end = (sid: string) =>
      commands.run(TENANT, sid, { kind: 'EndSession', reason: 'admin', now }, 'system').then(() => {
        revokedAt.set(sid, performance.now());
      });
    if (rate) {
      // Paced: session i ends at start + i / rate.
      await pool(ids, 256, async (sid, i) => {
        const wait = start + (i * 1000) / rate - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        await end(sid);
      });
    } else await pool(ids, 64, (sid) => end(sid));
    const ended = performance.now();
    const during = await loaded;
    await Promise.race([done, new Promise((r) => setTimeout(r, wait * 1000))]);
    const finished = performance.now();

    const sorted = Float64Array.from(lags).sort();
    const flaky = Float64Array.from(flakyLags).sort();
    const all = Float64Array.from([...lags, ...flakyLags]).sort();
    const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
    console.log(`ended ${sessions.toLocaleString('en-US')} sessions in ${((ended - start) / 1000).toFixed(2)} s (${Math.round((sessions * 1000) / (ended - start)).toLocaleString('en-US')}/s)`);
    console.log(`delivered ${delivered.toLocaleString('en-US')} of ${sessions.toLocaleString('en-US')} in ${((finished - start) / 1000).toFixed(2)} s from the first end (${Math.round((delivered * 1000) / (finished - start)).toLocaleString('en-US')}/s); POSTs ${rs.map((r) => r.posts).join(', ')} (${rs[RECEIVERS - 1].refused} refused by the flaky one)`);
    console.log(`lag SessionRevoked -> 200: all p50 ${fmt(percentile(all, 50))}, p99 ${fmt(percentile(all, 99))}; healthy receivers p50 ${fmt(percentile(sorted, 50))}, p99 ${fmt(percentile(sorted, 99))}; flaky receiver p50 ${fmt(percentile(flaky, 50))}, p99 ${fmt(percentile(flaky, 99))}`);
    console.log(`token endpoint during it: ${Math.round(during.rps).toLocaleString('en-US')} req/s (p50 ${during.p50.toFixed(1)} ms, p99 ${during.p99.toFixed(1)} ms, ${during.errors} errors): ${((during.rps / unloaded.rps - 1) * 100).toFixed(1)}% against alone`);
  } finally {
    await app.close();
    for (const r of rs) r.server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs `task` over `items` with at most `width` at once. */
async function pool<T>(items: readonly T[], width: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await task(items[i], i);
      }
    }),
  );
}

if (process.env.DELIVERY_BENCH_LOAD) void loadChild();
else
  main().then(
    () => process.exit(0),
    (error: Error) => {
      console.error(error.stack ?? error.message);
      process.exit(1);
    },
  );
