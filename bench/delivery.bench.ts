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
 * deliveries after the ends, default 600: the flaky receiver's retries back off), --alone (no
 * token-endpoint load: what the ends and their deliveries cost on their own), --ends-only (the
 * clients register no back-channel logout URI: what the ends cost without deliveries), --profile FILE (a V8
 * CPU profile of the event-loop thread from the first end to the last delivery).
 *
 * The server runs in this process (so that the sessions can be made and ended through its own
 * command path without a browser sign-in each); the receivers run in a child process
 * (bench/delivery-receivers.ts), the token endpoint's load in another. Lag is the time from the
 * end of a session's `EndSession` command (its `SessionRevoked` appended) to the receiver's
 * answering 200 to a POST for that session. Printed after: the machine's load average, and the
 * CPU time of each side over the window (this process by thread, the receivers' process).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { numberFlag, readFlags } from './args.js';
import { HttpConnection } from './oauth-http.js';
import { percentile, runLoad, type LoadResult } from './oauth-load.js';
import { formatSummary, summarizeProfile } from './oauth-profile.js';
import { freePort } from './oauth-servers.js';
import { RECEIVERS, type ReceiversMessage, type ReceiversReport, wallNow } from './delivery-receivers.js';
import { loadNow, sampleThreads, threadsBetween } from './thread-cpu.js';

const USAGE = 'usage: npm run bench:delivery -- [--sessions N] [--rate R] [--duration S] [--connections C] [--wait S] [--alone] [--ends-only] [--profile FILE]';
const TENANT = 'bench';
const SECRET = 'bench-secret-0123456789-0123456789-abcdef';
const REDIRECT = 'http://127.0.0.1:9999/cb';

/** The bench's tenant; `logoutUris` false: the clients register no receiver (what the ends cost without their deliveries). */
function bootstrap(ports: number[], logoutUris = true): string {
  const clients = ports
    .map(
      (port, i) => `
      - client_id: rp${i}
        redirect_uris: ["${REDIRECT}"]
        token_endpoint_auth_method: none
        first_party: true${logoutUris ? `
        backchannel_logout_uri: "http://127.0.0.1:${port}/logout"` : ''}`,
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

/** The receivers' child process (bench/delivery-receivers.ts), once it listens. */
async function startReceivers(): Promise<{ child: ChildProcess; ports: number[]; next: (type: string) => Promise<ReceiversMessage> }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./delivery-receivers.js', import.meta.url))], { env: { ...process.env, DELIVERY_BENCH_RECEIVERS: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting: Array<{ type: string; resolve: (m: ReceiversMessage) => void }> = [];
  child.on('message', (m: ReceiversMessage) => {
    const i = waiting.findIndex((w) => w.type in m);
    if (i >= 0) waiting.splice(i, 1)[0].resolve(m);
  });
  const next = (type: string) => new Promise<ReceiversMessage>((resolve) => waiting.push({ type, resolve }));
  const { ports } = (await next('ports')) as { ports: number[] };
  return { child, ports, next };
}

/** The V8 CPU profile of this process's main thread between start() and stop(file). */
async function profiler(): Promise<{ start(): Promise<void>; stop(file: string): Promise<void> }> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  return {
    start: async () => void (await session.post('Profiler.start')),
    stop: async (file) => writeFileSync(file, JSON.stringify((await session.post('Profiler.stop')).profile)),
  };
}

async function main(): Promise<void> {
  const f = readFlags(process.argv.slice(2), { sessions: 'string', rate: 'string', duration: 'string', connections: 'string', wait: 'string', alone: 'boolean', 'ends-only': 'boolean', profile: 'string' }, USAGE);
  const sessions = numberFlag(f.sessions, 'sessions', 10_000, 1, true);
  const rate = numberFlag(f.rate, 'rate', 0, 0);
  const duration = numberFlag(f.duration, 'duration', 5, 0.5);
  const connections = numberFlag(f.connections, 'connections', 16, 1, true);
  const wait = numberFlag(f.wait, 'wait', 600, 0);
  const alone = f.alone === true;
  const endsOnly = f['ends-only'] === true;
  const profileFile = typeof f.profile === 'string' ? f.profile : undefined;

  const revokedAt = new Map<string, number>();
  const receivers = await startReceivers();
  const allDelivered = receivers.next('done');

  const dataDir = mkdtempSync(join(tmpdir(), 'authserver-bench-delivery-'));
  writeFileSync(join(dataDir, 'bootstrap.yaml'), bootstrap(receivers.ports, !endsOnly));
  const port = await freePort();
  Object.assign(process.env, { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir, BOOTSTRAP_FILE: join(dataDir, 'bootstrap.yaml'), LOG_LEVEL: 'error' });
  const { startServer } = await import('../src/server.js');
  const { SessionCommands } = await import('../src/auth/sessions/session-commands.js');
  const app = await startServer({ logLevel: 'error', logFormat: 'text', trustProxy: false });
  // When the sender took each session's delivery from its follower: the lag's two parts.
  const { DeliverySender } = await import('../src/delivery/delivery-sender.js');
  const sender = app.get(DeliverySender);
  const enqueue = sender.enqueue.bind(sender);
  const enqueuedAt = new Map<string, number>();
  sender.enqueue = (d) => {
    const sid = (d.data as { sessionId?: string }).sessionId;
    if (sid !== undefined && !enqueuedAt.has(sid)) enqueuedAt.set(sid, wallNow());
    enqueue(d);
  };
  const prof = profileFile ? await profiler() : undefined;
  try {
    const commands = app.get(SessionCommands);
    const now = Math.floor(Date.now() / 1000);
    const ids = Array.from({ length: sessions }, () => randomBytes(16).toString('base64url'));
    console.log(`making ${sessions.toLocaleString('en-US')} sessions, each with a code for one of ${RECEIVERS} clients...`);
    await pool(ids, 64, async (sid, i) => {
      await commands.run(TENANT, sid, { kind: 'StartSession', tenantId: TENANT, sessionId: sid, userId: 'bench-user', cookieHash: randomBytes(32).toString('base64url'), now }, 'user:bench-user');
      const code = { grantId: randomBytes(12).toString('base64url'), codeHash: randomBytes(32).toString('base64url'), clientId: `rp${i % RECEIVERS}`, redirectUri: REDIRECT, codeChallenge: randomBytes(32).toString('base64url'), codeChallengeMethod: 'S256' as const, scope: ['openid'], issuedAt: now, expiresAt: now + 3600 };
      await commands.run(TENANT, sid, { kind: 'IssueCode', code }, 'user:bench-user');
    });

    const unloaded = alone ? undefined : await tokenLoad(port, duration, connections);
    if (unloaded) console.log(`token endpoint alone: ${Math.round(unloaded.rps).toLocaleString('en-US')} req/s (p50 ${unloaded.p50.toFixed(1)} ms, p99 ${unloaded.p99.toFixed(1)} ms, ${unloaded.errors} errors; load generator ${(unloaded.clientCpu * 100).toFixed(0)}% of a core)`);

    console.log(`ending them${rate ? ` at ${rate}/s` : ' as fast as the server takes them'}${alone ? '' : ', with the token endpoint under load meanwhile'}...`);
    receivers.child.send({ expect: sessions });
    receivers.child.send({ mark: true });
    await prof?.start();
    const loadBefore = loadNow();
    const threadsBefore = sampleThreads();
    const loaded = alone ? undefined : tokenLoad(port, duration, connections);
    const start = performance.now();
    const end = (sid: string) =>
      commands.run(TENANT, sid, { kind: 'EndSession', reason: 'admin', now }, 'system').then(() => {
        revokedAt.set(sid, wallNow());
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
    if (!endsOnly) await Promise.race([allDelivered, new Promise((r) => setTimeout(r, wait * 1000))]);
    const finished = performance.now();
    const threads = threadsBetween(threadsBefore, sampleThreads());
    const loadAfter = loadNow();
    if (prof && profileFile) {
      await prof.stop(profileFile);
      console.log(`CPU profile of the event-loop thread written to ${profileFile}:\n${formatSummary(summarizeProfile(profileFile))}`);
    }
    receivers.child.send({ report: true });
    const { report } = (await receivers.next('report')) as { report: ReceiversReport };

    const lags: number[] = [];
    const flakyLags: number[] = [];
    const toSender: number[] = [];
    const inSender: number[] = [];
    for (const [sid, receiver, at] of report.delivered) {
      const revoked = revokedAt.get(sid);
      if (revoked !== undefined) (receiver === RECEIVERS - 1 ? flakyLags : lags).push(at - revoked);
      const taken = enqueuedAt.get(sid);
      if (revoked !== undefined && taken !== undefined && receiver !== RECEIVERS - 1) {
        toSender.push(taken - revoked);
        inSender.push(at - taken);
      }
    }
    const delivered = report.delivered.length;
    const sorted = Float64Array.from(lags).sort();
    const flaky = Float64Array.from(flakyLags).sort();
    const all = Float64Array.from([...lags, ...flakyLags]).sort();
    const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
    const window = (finished - start) / 1000;
    console.log(`ended ${sessions.toLocaleString('en-US')} sessions in ${((ended - start) / 1000).toFixed(2)} s (${Math.round((sessions * 1000) / (ended - start)).toLocaleString('en-US')}/s)`);
    console.log(`delivered ${delivered.toLocaleString('en-US')} of ${sessions.toLocaleString('en-US')} in ${window.toFixed(2)} s from the first end (${Math.round(delivered / window).toLocaleString('en-US')}/s); POSTs ${report.posts.join(', ')} (${report.refused} refused by the flaky one)`);
    console.log(`lag SessionRevoked -> 200: all p50 ${fmt(percentile(all, 50))}, p99 ${fmt(percentile(all, 99))}; healthy receivers p50 ${fmt(percentile(sorted, 50))}, p99 ${fmt(percentile(sorted, 99))}; flaky receiver p50 ${fmt(percentile(flaky, 50))}, p99 ${fmt(percentile(flaky, 99))}`);
    const follower = Float64Array.from(toSender).sort();
    const sending = Float64Array.from(inSender).sort();
    console.log(`  healthy receivers' lag in two parts: SessionRevoked -> the sender takes the delivery p50 ${fmt(percentile(follower, 50))}, p99 ${fmt(percentile(follower, 99))}; taken -> 200 p50 ${fmt(percentile(sending, 50))}, p99 ${fmt(percentile(sending, 99))}`);
    if (during && unloaded) console.log(`token endpoint during it: ${Math.round(during.rps).toLocaleString('en-US')} req/s (p50 ${during.p50.toFixed(1)} ms, p99 ${during.p99.toFixed(1)} ms, ${during.errors} errors; load generator ${(during.clientCpu * 100).toFixed(0)}% of a core): ${((during.rps / unloaded.rps - 1) * 100).toFixed(1)}% against alone`);
    const posts = report.posts.reduce((a, b) => a + b, 0);
    const others = threads.others.slice(0, 6).map(([name, s]) => `${name} ${s.toFixed(2)}`).join(', ');
    console.log(`machine: ${loadBefore} at the first end, ${loadAfter} at the last delivery; ${cpus().length} cores`);
    console.log(`CPU over the ${window.toFixed(1)} s window: server process ${threads.total.toFixed(2)} s (event-loop thread ${threads.main.toFixed(2)} s; the other threads that ran most: ${others}), receivers' process ${report.cpuSeconds.toFixed(2)} s`);
    console.log(`server CPU per session ended ${((threads.total / sessions) * 1e6).toFixed(0)} µs (event-loop thread ${((threads.main / sessions) * 1e6).toFixed(0)} µs), per POST ${((threads.total / posts) * 1e6).toFixed(0)} µs${alone ? '' : ' (the token endpoint\'s load included)'}`);
  } finally {
    await app.close();
    receivers.child.disconnect();
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
