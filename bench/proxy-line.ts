/**
 * The edge proxy's line of the benchmarks (`npm run bench:proxy`, and the end of `npm run bench`):
 * one small GET to a loopback upstream directly, through a plain `@fastify/http-proxy`, and
 * through our `/resources/{id}/...` on a public and on an identity-checked route.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CookieJar, HttpConnection } from './oauth-http.js';
import { formatSummary, summarizeProfile } from './oauth-profile.js';
import { type LoadResult, runLoad } from './oauth-load.js';
import { bootstrapYaml, TENANT } from './oauth-fixtures.js';
import { oursSide, signInAndExchange, type VirtualClient } from './oauth-scenarios.js';
import { freePort, startOurs } from './oauth-servers.js';

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

/**
 * The same forwarding with no checks at all: a bare Fastify with `@fastify/http-proxy` (undici
 * pool, keep-alive) in front of the upstream, as a reference for what a reverse proxy costs.
 */
const PLAIN_PROXY = `
const fastify = require('fastify')({ logger: false });
fastify.register(require('@fastify/http-proxy'), { upstream: process.env.UPSTREAM, prefix: '/api', undici: { connections: 128, pipelining: 1 } });
fastify.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).then(() => process.stdout.write('ready\\n'));
`;

async function startChild(script: string, env: Record<string, string>, what: string): Promise<{ port: number; pid: number; stop: () => void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`${what} exited (${code})`)));
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

export interface ProxyBenchOptions {
  durationMs: number;
  warmupMs: number;
  connections: number;
  rounds: number;
  /** A directory for a V8 CPU profile of our server over each of our two runs of the first round, summarised after the table. */
  profileDir?: string;
}

/**
 * Runs the four lines (upstream directly, a plain `@fastify/http-proxy`, ours on a public route,
 * ours on an identity-checked route) and returns the table and the verdicts as lines of text.
 * With several rounds the runs alternate and each keeps its median run by throughput (on a
 * shared machine, load from elsewhere moves single runs by more than the difference).
 */
export async function measureProxy({ durationMs, warmupMs, connections, rounds, profileDir }: ProxyBenchOptions): Promise<string[]> {
  const upstream = await startChild(UPSTREAM, {}, 'the upstream');
  const stops: Array<() => void | Promise<void>> = [upstream.stop];
  try {
    const plain = await startChild(PLAIN_PROXY, { UPSTREAM: `http://127.0.0.1:${upstream.port}` }, 'the plain proxy');
    stops.push(plain.stop);
    const dataDir = mkdtempSync(join(tmpdir(), 'proxy-bench-'));
    const bootstrapFile = join(dataDir, 'bootstrap.yaml');
    writeFileSync(bootstrapFile, bootstrap(upstream.port));
    const ours = await startOurs({ profile: profileDir !== undefined, keepData: false, dataDir, bootstrapFile });
    stops.push(() => ours.stop());
    await adminPatchRoutes(ours.port);
    const side = oursSide(ours.port, TENANT);
    const clients: VirtualClient[] = [];
    for (let i = 0; i < connections; i++) {
      const vc: VirtualClient = { conn: new HttpConnection('127.0.0.1', ours.port), jar: new CookieJar() };
      await signInAndExchange(side, vc, 'openid');
      clients.push(vc);
    }
    const direct = Array.from({ length: connections }, () => new HttpConnection('127.0.0.1', upstream.port));
    const viaPlain = Array.from({ length: connections }, () => new HttpConnection('127.0.0.1', plain.port));
    const options = { warmupMs, durationMs };
    process.stderr.write(`proxy bench: ${connections} connections, ${warmupMs / 1000} s warm-up + ${durationMs / 1000} s each, ${rounds} round(s)\n`);
    const publicPath = `/${TENANT}/resources/api/public/1`;
    const itemsPath = `/${TENANT}/resources/api/items/1`;
    const runs: Array<[string, () => Promise<LoadResult>]> = [
      ['upstream directly', () => runLoad(direct, async (c) => ok((await c.request('GET', '/items/1')).status, 'direct'), options, upstream.pid)],
      ['plain @fastify/http-proxy', () => runLoad(viaPlain, async (c) => ok((await c.request('GET', '/api/items/1')).status, 'plain'), options, plain.pid)],
      ['proxy, public route', () => runLoad(clients, async (vc) => ok((await vc.conn.request('GET', publicPath)).status, 'public'), options, ours.pid)],
      [
        'proxy, session + permissions',
        () => runLoad(clients, async (vc) => ok((await vc.conn.request('GET', itemsPath, { cookie: vc.jar.header(itemsPath) ?? '' })).status, 'identity'), options, ours.pid),
      ],
    ];
    const all = runs.map(() => [] as LoadResult[]);
    const profiles: string[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const [i, [name, run]] of runs.entries()) {
        // Our two runs (the last two) of the first round, profiled over warm-up and window alike.
        const profiling = round === 0 && i >= 2 && profileDir !== undefined && ours.profile !== undefined;
        if (profiling) await ours.profile!('start');
        all[i].push(await run());
        if (profiling) {
          const file = join(profileDir!, `proxy-${i === 2 ? 'public' : 'checked'}.cpuprofile`);
          await ours.profile!('stop', file);
          profiles.push(`profile of our server, ${name}: ${file}\n${formatSummary(summarizeProfile(file, 40), 25)}`);
        }
      }
    }
    for (const c of [...direct, ...viaPlain]) c.close();
    for (const vc of clients) vc.conn.close();
    const median = (rs: LoadResult[]) => [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)];
    const results: Array<[string, LoadResult]> = runs.map(([name], i) => [name, median(all[i])]);
    const [[, directResult], [, plainResult], [, publicRoute], [, checked]] = results;
    const out = [`${'GET, small JSON'.padEnd(34)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)} ${'of direct'.padStart(9)} ${'CPU ms/req'.padStart(10)}`];
    for (const [name, r] of results) out.push(row(name, r, r === directResult ? undefined : directResult));
    const cost = (of: LoadResult, base: LoadResult) => (100 - (100 * of.rps) / base.rps).toFixed(0);
    out.push(`identity checks cost ${cost(checked, publicRoute)}% of our proxy's throughput (public route: ${publicRoute.rps.toFixed(0)} req/s, checked: ${checked.rps.toFixed(0)} req/s; aim: under 25%)`);
    out.push(`our identity-checked route has ${(100 - Number(cost(checked, plainResult))).toFixed(0)}% of the plain @fastify/http-proxy's throughput (${plainResult.rps.toFixed(0)} req/s)`);
    // On a shared machine the server's CPU time per request is the steadier measure of the checks' cost.
    const perRequest = (r: LoadResult) => (r.serverCpu === undefined ? undefined : r.serverCpu / r.rps);
    const [pc, pp, pl] = [perRequest(checked), perRequest(publicRoute), perRequest(plainResult)];
    if (pc !== undefined && pp !== undefined) out.push(`identity checks cost ${(100 * (pc / pp - 1)).toFixed(0)}% more server CPU per request than the public route`);
    if (pc !== undefined && pl !== undefined) out.push(`our checked route costs ${(pc / pl).toFixed(1)}x the plain proxy's server CPU per request`);
    out.push(`load generator CPU (share of one core): ${results.map(([n, r]) => `${n} ${r.clientCpu.toFixed(2)}`).join(', ')}`);
    for (const [name, r] of results) if (r.errors) out.push(`${name}: ${JSON.stringify(r.errorSamples)}`);
    out.push(...profiles);
    return out;
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}
