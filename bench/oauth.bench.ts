/**
 * Comparison benchmark: our server (NestJS on Fastify, durable embedded event store) against
 * oidc-provider (npm, default in-memory adapter), both as child processes on this machine,
 * driven by the same closed-loop load generator with the same connections and duration.
 *
 *   npm run bench                               # 32 connections, 2 s warm-up + 8 s per run
 *   npm run bench -- --duration 3 --warmup 1    # quicker
 *   npm run bench -- --scenarios refresh_rotation,userinfo --sides ours --profile
 *
 * Options: --duration S (measured seconds per run, default 8), --warmup S (default 2),
 * --connections N (virtual clients, each with its own keep-alive connection, default 32),
 * --scenarios a,b (subset of client_credentials, refresh_rotation, introspection, userinfo,
 * authorization_code, client_credentials_dpop, private_key_jwt, proxy), --sides ours,peer, --profile (V8 CPU profile of our server for each
 * measured window, summarised on stderr and saved next to the results), --rounds N (run
 * every scenario N times, alternating the servers, and keep each server's median run by
 * throughput; default 1), --keep-data.
 *
 * Scenarios (one operation each, all expected to answer 200):
 *  - client_credentials: POST /token, Basic auth, scope api:read -> JWT access token;
 *  - refresh_rotation: every virtual client holds its own refresh-token chain (from its own
 *    sign-in) and always presents the newest token; each answer rotates it;
 *  - introspection: POST introspect, Basic auth, of the client's valid access token;
 *  - userinfo: GET userinfo with that access token (scope openid profile email);
 *  - authorization_code: GET authorize with the browser session cookie -> redirect with a
 *    code -> POST /token with the PKCE verifier: both requests count as one operation;
 *  - client_credentials_dpop: client_credentials with a fresh DPoP proof (ES256, one key per
 *    virtual client) -> a DPoP-bound JWT access token;
 *  - private_key_jwt: client_credentials of a client that authenticates with a fresh ES256
 *    assertion (RFC 7523) -> JWT access token.
 * Sign-ins happen during set-up, once per virtual client, and are not measured.
 * Then the edge proxy's line (bench/proxy-line.ts, as `npm run bench:proxy` prints it) with the
 * same connections, durations and rounds, unless --scenarios leaves out `proxy` or --sides
 * leaves out ours.
 *
 * Results: a table on stdout; JSON under os.tmpdir()/oauth-bench/ (path printed).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CookieJar, HttpConnection } from './oauth-http.js';
import { type LoadResult, processCpuSeconds, runLoad } from './oauth-load.js';
import { formatSummary, type ProfileSummary, summarizeProfile } from './oauth-profile.js';
import { describeClientCredentialsToken, oursSide, peerSide, type Scenario, SCENARIOS, type Side, type SideName, type VirtualClient } from './oauth-scenarios.js';
import { type ServerProcess, startOurs, startPeer } from './oauth-servers.js';
import { TENANT } from './oauth-fixtures.js';
import { numberFlag, readFlags } from './args.js';
import { measureProxy } from './proxy-line.js';

/** Not a scenario of both servers: the edge proxy's line, ours only, printed after the table. */
const PROXY_LINE = 'proxy';

interface Options {
  duration: number;
  warmup: number;
  connections: number;
  scenarios: string[];
  sides: SideName[];
  rounds: number;
  profile: boolean;
  keepData: boolean;
}

const USAGE =
  'usage: npm run bench -- [--duration S] [--warmup S] [--connections N] [--rounds N] [--scenarios a,b] [--sides ours,peer] [--profile] [--keep-data]';

function parseOptions(argv: readonly string[]): Options {
  const f = readFlags(argv, { duration: 'string', warmup: 'string', connections: 'string', rounds: 'string', scenarios: 'string', sides: 'string', profile: 'boolean', 'keep-data': 'boolean' }, USAGE);
  const list = (value: string | boolean | undefined) => (typeof value === 'string' ? value.split(',').filter(Boolean) : undefined);
  const scenarios = list(f.scenarios) ?? [...SCENARIOS.map((s) => s.id), PROXY_LINE];
  const unknown = scenarios.filter((s) => s !== PROXY_LINE && !SCENARIOS.some((x) => x.id === s));
  if (!scenarios.length || unknown.length) throw new Error(`--scenarios: unknown ${unknown.join(', ') || '(empty)'}; choose from ${[...SCENARIOS.map((s) => s.id), PROXY_LINE].join(', ')}`);
  const sides = list(f.sides) ?? ['ours', 'peer'];
  if (!sides.length || sides.some((s) => s !== 'ours' && s !== 'peer')) throw new Error(`--sides takes ours, peer or both\n${USAGE}`);
  return {
    duration: numberFlag(f.duration, 'duration', 8, 0.1),
    warmup: numberFlag(f.warmup, 'warmup', 2, 0),
    connections: numberFlag(f.connections, 'connections', 32, 1, true),
    rounds: numberFlag(f.rounds, 'rounds', 1, 1, true),
    scenarios,
    sides: sides as SideName[],
    profile: f.profile === true,
    keepData: f['keep-data'] === true,
  };
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** Waits until the server process is nearly idle (projections caught up after a write-heavy run), at most 15 s. */
async function settle(pid: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const a = processCpuSeconds(pid);
    await new Promise((r) => setTimeout(r, 250));
    const b = processCpuSeconds(pid);
    if (a === undefined || b === undefined || (b - a) / 0.25 < 0.05 || Date.now() > deadline) return;
  }
}

interface RunResult extends LoadResult {
  setupSeconds: number;
  /** Throughput of every round, when there were several. */
  roundsRps?: number[];
  profile?: { file: string; summary: ProfileSummary };
}

async function runScenario(scenario: Scenario, side: Side, server: ServerProcess, options: Options, outDir: string, round: number): Promise<RunResult> {
  await settle(server.pid);
  const clients: VirtualClient[] = Array.from({ length: options.connections }, () => ({ conn: new HttpConnection(side.host, side.port), jar: new CookieJar() }));
  try {
    const t0 = Date.now();
    await Promise.all(clients.map((vc) => scenario.setup(side, vc)));
    const setupSeconds = (Date.now() - t0) / 1000;
    await settle(server.pid);
    const profileFile = join(outDir, `ours-${scenario.id}${options.rounds > 1 ? `-${round}` : ''}.cpuprofile`);
    const profiling = options.profile && server.profile !== undefined;
    // The profiler runs over warm-up and measurement alike; the warm-up is short next to the window.
    if (profiling) await server.profile!('start');
    const result: RunResult = { ...(await runLoad(clients, (vc) => scenario.op(side, vc), { warmupMs: options.warmup * 1000, durationMs: options.duration * 1000 }, server.pid)), setupSeconds };
    if (profiling) {
      await server.profile!('stop', profileFile);
      result.profile = { file: profileFile, summary: summarizeProfile(profileFile, 40) };
    }
    return result;
  } finally {
    for (const vc of clients) vc.conn.close();
  }
}

const fmt = (n: number | undefined, digits = 1) => (n === undefined || !Number.isFinite(n) ? '-' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const pct = (n: number | undefined) => (n === undefined ? '-' : `${Math.round(n * 100)}%`);

function table(rows: string[][], rightAlignFrom = 1): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows
    .map((r, i) => {
      const line = r.map((cell, c) => (c >= rightAlignFrom ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ');
      return i === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
    })
    .join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = join(tmpdir(), 'oauth-bench', stamp);
  mkdirSync(outDir, { recursive: true });
  log(
    `oauth bench: ${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s per run; ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}`,
  );

  const servers: Partial<Record<SideName, ServerProcess>> = {};
  const sides: Partial<Record<SideName, Side>> = {};
  const results: Array<{ scenario: string; title: string } & Partial<Record<SideName, RunResult>> & { ratio?: number }> = [];
  const formats: Partial<Record<SideName, string>> = {};
  try {
    if (options.sides.includes('ours')) {
      const ours = await startOurs({ profile: options.profile, keepData: options.keepData });
      servers.ours = ours;
      sides.ours = oursSide(ours.port, TENANT);
      log(`ours: node dist/src/main.js on port ${ours.port}, DATA_DIR ${ours.dataDir}${options.profile ? ' (profiled)' : ''}`);
    }
    if (options.sides.includes('peer')) {
      const peer = await startPeer();
      servers.peer = peer;
      sides.peer = peerSide(peer.port);
      log(`peer: oidc-provider on port ${peer.port}`);
    }
    for (const name of options.sides) {
      formats[name] = await describeClientCredentialsToken(sides[name]!);
      log(`${name} client_credentials access token: ${formats[name]}`);
    }

    for (const scenario of SCENARIOS.filter((s) => options.scenarios.includes(s.id))) {
      const row: (typeof results)[number] = { scenario: scenario.id, title: scenario.title };
      const runs: Partial<Record<SideName, RunResult[]>> = {};
      for (let round = 1; round <= options.rounds; round++) {
        for (const name of options.sides) {
          const tag = options.rounds > 1 ? ` (round ${round}/${options.rounds})` : '';
          log(`\n${scenario.id} on ${name}${tag}: setting up ${options.connections} clients...`);
          const r = await runScenario(scenario, sides[name]!, servers[name]!, options, outDir, round);
          (runs[name] ??= []).push(r);
          log(
            `${scenario.id} on ${name}${tag}: ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms, ${r.errors} errors; ` +
              `server CPU ${pct(r.serverCpu)}, load generator CPU ${pct(r.clientCpu)} (set-up ${fmt(r.setupSeconds, 1)} s)`,
          );
          for (const [message, count] of Object.entries(r.errorSamples)) log(`  error x${count}: ${message}`);
          if (r.profile) log(`  profile ${r.profile.file}\n${formatSummary(r.profile.summary)}`);
        }
      }
      for (const name of options.sides) {
        const all = runs[name]!;
        const median = [...all].sort((a, b) => a.rps - b.rps)[Math.floor((all.length - 1) / 2)];
        // Errors of every round count: a scenario with errors anywhere says so.
        row[name] = { ...median, errors: all.reduce((n, r) => n + r.errors, 0), ...(all.length > 1 ? { roundsRps: all.map((r) => Math.round(r.rps)) } : {}) };
      }
      if (row.ours && row.peer && row.peer.rps > 0) row.ratio = row.ours.rps / row.peer.rps;
      results.push(row);
    }
  } finally {
    for (const s of Object.values(servers)) await s.stop();
  }

  const header = ['scenario'];
  for (const name of options.sides) header.push(`${name} req/s`, `${name} p50 ms`, `${name} p99 ms`, `${name} errors`);
  if (options.sides.length === 2) header.push('ours/peer');
  const rows = [header];
  for (const r of results) {
    const line = [r.scenario];
    for (const name of options.sides) {
      const x = r[name];
      line.push(fmt(x?.rps, 0), fmt(x?.p50, 2), fmt(x?.p99, 2), x ? String(x.errors) : '-');
    }
    if (options.sides.length === 2) line.push(r.ratio === undefined ? '-' : `${r.ratio.toFixed(2)}x`);
    rows.push(line);
  }
  const roundsNote = options.rounds > 1 ? `; median of ${options.rounds} rounds by throughput` : '';
  console.log(`\n${options.connections} connections, ${options.duration} s measured after ${options.warmup} s warm-up, per scenario and server${roundsNote}\n`);
  console.log(table(rows));
  const cpuRows = [['scenario', ...options.sides.flatMap((n) => [`${n} server CPU`, `${n} µs/request`, `${n} loadgen CPU`])]];
  // Server CPU time (all threads) per completed request: what a line costs, whatever the throughput.
  const perRequest = (x?: LoadResult) => (x?.serverCpu === undefined || !x.rps ? '-' : fmt((x.serverCpu / x.rps) * 1e6, 0));
  for (const r of results) cpuRows.push([r.scenario, ...options.sides.flatMap((n) => [pct(r[n]?.serverCpu), perRequest(r[n]), pct(r[n]?.clientCpu)])]);
  console.log(`\nCPU over the measured window (100% = one core; the machine has ${cpus().length}):\n`);
  console.log(table(cpuRows));
  const withErrors = results.flatMap((r) => options.sides.filter((n) => (r[n]?.errors ?? 0) > 0).map((n) => `${r.scenario} on ${n}: ${r[n]!.errors} errors`));
  if (withErrors.length) console.log(`\nWARNING: scenarios with errors (not counted in req/s): ${withErrors.join('; ')}`);
  else console.log('\nAll responses were as expected (no errors).');

  const json = {
    startedAt: stamp,
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    options,
    clientCredentialsTokens: formats,
    results: results.map((r) => ({
      ...r,
      ...Object.fromEntries(options.sides.map((n) => [n, r[n] ? { ...r[n], profile: r[n]!.profile ? { file: r[n]!.profile!.file, ...r[n]!.profile!.summary } : undefined } : undefined])),
    })),
  };
  const file = join(outDir, 'results.json');
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  writeFileSync(join(tmpdir(), 'oauth-bench', 'latest.json'), `${JSON.stringify(json, null, 2)}\n`);
  console.log(`\nresults: ${file} (also ${join(tmpdir(), 'oauth-bench', 'latest.json')})`);
  if (options.scenarios.includes(PROXY_LINE) && options.sides.includes('ours')) {
    const lines = await measureProxy({ durationMs: options.duration * 1000, warmupMs: options.warmup * 1000, connections: options.connections, rounds: options.rounds });
    console.log(`\nThe edge's proxy (as npm run bench:proxy):\n\n${lines.join('\n')}`);
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
