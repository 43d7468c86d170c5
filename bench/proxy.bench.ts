/**
 * The edge's proxy: requests/s and latency of one small GET to a loopback upstream, called
 * directly, through `/resources/{id}/...` on a public route (path checks, route, headers,
 * forwarding), and through an identity-checked route (the browser session cookie of a signed-in
 * user, her roles and permissions from the log, the identity JWT, then the same forwarding).
 * Our server and the upstream are child processes; the load generator is this process.
 *
 *   npm run bench:proxy                         # 32 connections, 2 s warm-up + 8 s per run
 *   npm run bench:proxy -- --duration 3 --warmup 1 --connections 16 --rounds 3
 *
 * With --rounds N the three runs alternate N times and each keeps its median run by throughput
 * (on a shared machine, load from elsewhere moves single runs by more than the difference).
 *
 * Not measured: a plain @fastify/http-proxy without checks (not a dependency of the project),
 * and bearer tokens (a token for a resource needs RFC 8707 resource indicators at /token).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numberFlag, readFlags } from './args.js';
import { CookieJar, HttpConnection } from './oauth-http.js';
import { type LoadResult, runLoad } from './oauth-load.js';
import { bootstrapYaml, TENANT } from './oauth-fixtures.js';
import { oursSide, signInAndExchange, type VirtualClient } from './oauth-scenarios.js';
import { freePort, startOurs } from './oauth-servers.js';

const USAGE = 'usage: npm run bench:proxy -- [--duration S] [--warmup S] [--connections N] [--rounds N]';
const ADMIN_SECRET = 'bench-admin-secret-0123456789-0123456789';

/** The upstream (CPU ms/req of the direct row is the upstream's own): answers every request with a small JSON body, on keep-alive connections. */
const UPSTREAM = `
const http = require('node:http');
const body = JSON.stringify({ ok: true, items: [1, 2, 3] });
http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body));
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\\n'));
`;

/** The bench tenant of the OAuth benchmark, with an admin client, the resource `api`, and alice holding `api:read` through the role `reader`. */
function bootstrap(upstreamPort: number): string {
  return bootstrapYaml()
    .replace('    clients:\n', `    clients:\n      - client_id: admin\n        client_secret: "${ADMIN_SECRET}"\n        grant_types: [client_credentials]\n        scope: "central:read central:write"\n`)
    .replace(
      '    users:\n',
      `    resources:\n      - { id: api, identifier: "https://api.bench.example/", upstream_url: "http://127.0.0.1:${upstreamPort}" }\n    permissions:\n      - { id: "api:items", resource: api }\n    roles:\n      - { id: reader, permissions: ["api:items"] }\n    users:\n`,
    )
    .replace(/(    users:\n      - username: \S+\n)/, '$1        roles: [reader]\n');
}

async function startUpstream(): Promise<{ port: number; pid: number; stop: () => void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', UPSTREAM], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the upstream exited (${code})`)));
  });
  return { port, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

async function adminPatchRoutes(port: number): Promise<void> {
  const base = `http://127.0.0.1:${port}/${TENANT}`;
  const token = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_SECRET}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=central:write',
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const res = await fetch(`${base}/configuration/resources/api`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({ routes: [{ methods: ['GET'], path: '/public/**', public: true }, { methods: ['GET'], path: '/items/**', permissions: ['api:items'] }] }),
  });
  if (res.status !== 200) throw new Error(`PATCH routes: ${res.status} ${await res.text()}`);
}

const ok = (status: number, what: string) => (status === 200 ? true : `${what}: HTTP ${status}`);

function row(name: string, r: LoadResult, direct?: LoadResult): string {
  const share = direct ? `${((100 * r.rps) / direct.rps).toFixed(0)}%` : '';
  const cpuPerRequest = r.serverCpu !== undefined && r.rps > 0 ? ((1000 * r.serverCpu) / r.rps).toFixed(3) : '';
  return `${name.padEnd(34)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.errors).padStart(7)} ${share.padStart(9)} ${cpuPerRequest.padStart(10)}`;
}

async function main(): Promise<void> {
  const f = readFlags(process.argv.slice(2), { duration: 'string', warmup: 'string', connections: 'string', rounds: 'string' }, USAGE);
  const rounds = numberFlag(f.rounds, 'rounds', 1, 1, true);
  const durationMs = numberFlag(f.duration, 'duration', 8, 0.5) * 1000;
  const warmupMs = numberFlag(f.warmup, 'warmup', 2, 0) * 1000;
  const connections = numberFlag(f.connections, 'connections', 32, 1, true);
  const upstream = await startUpstream();
  const dataDir = mkdtempSync(join(tmpdir(), 'proxy-bench-'));
  const bootstrapFile = join(dataDir, 'bootstrap.yaml');
  writeFileSync(bootstrapFile, bootstrap(upstream.port));
  const ours = await startOurs({ profile: false, keepData: false, dataDir, bootstrapFile });
  try {
    await adminPatchRoutes(ours.port);
    const side = oursSide(ours.port, TENANT);
    const clients: VirtualClient[] = [];
    for (let i = 0; i < connections; i++) {
      const vc: VirtualClient = { conn: new HttpConnection('127.0.0.1', ours.port), jar: new CookieJar() };
      await signInAndExchange(side, vc, 'openid');
      clients.push(vc);
    }
    const direct = Array.from({ length: connections }, () => new HttpConnection('127.0.0.1', upstream.port));
    const options = { warmupMs, durationMs };
    process.stderr.write(`${connections} connections, ${warmupMs / 1000} s warm-up + ${durationMs / 1000} s each\n`);
    const publicPath = `/${TENANT}/resources/api/public/1`;
    const itemsPath = `/${TENANT}/resources/api/items/1`;
    const runs: Array<[string, () => Promise<LoadResult>]> = [
      ['upstream directly', () => runLoad(direct, async (c) => ok((await c.request('GET', '/items/1')).status, 'direct'), options, upstream.pid)],
      ['proxy, public route', () => runLoad(clients, async (vc) => ok((await vc.conn.request('GET', publicPath)).status, 'public'), options, ours.pid)],
      [
        'proxy, session + permissions',
        () => runLoad(clients, async (vc) => ok((await vc.conn.request('GET', itemsPath, { cookie: vc.jar.header(itemsPath) ?? '' })).status, 'identity'), options, ours.pid),
      ],
    ];
    const all = runs.map(() => [] as LoadResult[]);
    for (let round = 0; round < rounds; round++) for (const [i, [, run]] of runs.entries()) all[i].push(await run());
    const median = (rs: LoadResult[]) => [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)];
    const results: Array<[string, LoadResult]> = runs.map(([name], i) => [name, median(all[i])]);
    console.log(`${'GET, small JSON'.padEnd(34)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)} ${'of direct'.padStart(9)} ${'CPU ms/req'.padStart(10)}`);
    for (const [name, r] of results) console.log(row(name, r, name === 'upstream directly' ? undefined : results[0][1]));
    const [, publicRoute] = results[1];
    const [, checked] = results[2];
    console.log(`identity checks cost ${(100 - (100 * checked.rps) / publicRoute.rps).toFixed(0)}% of the proxy's throughput (public route: ${publicRoute.rps.toFixed(0)} req/s, checked: ${checked.rps.toFixed(0)} req/s)`);
    // On a shared machine the server's CPU time per request is the steadier measure of the checks' cost.
    if (checked.serverCpu !== undefined && publicRoute.serverCpu !== undefined) {
      const perRequest = (r: LoadResult) => r.serverCpu! / r.rps;
      console.log(`identity checks cost ${(100 * (perRequest(checked) / perRequest(publicRoute) - 1)).toFixed(0)}% more server CPU per request than the public route`);
    }
    console.log(`load generator CPU (share of one core): ${results.map(([n, r]) => `${n} ${r.clientCpu.toFixed(2)}`).join(', ')}`);
    for (const [name, r] of results) if (r.errors) console.log(`${name}: ${JSON.stringify(r.errorSamples)}`);
    for (const c of direct) c.close();
    for (const vc of clients) vc.conn.close();
  } finally {
    await ours.stop();
    upstream.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
