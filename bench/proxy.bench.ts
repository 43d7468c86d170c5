/**
 * The edge's proxy: requests/s and latency of one small GET to a loopback upstream, called
 * directly, through `/resources/{id}/...` on a public route (path checks, route, headers,
 * forwarding), and through an identity-checked route (the browser session cookie of a signed-in
 * user, her roles and permissions from the log, the identity JWT, then the same forwarding).
 * Our server and the upstream are child processes; the load generator is this process.
 *
 *   npm run bench:proxy                         # 32 connections, 2 s warm-up + 8 s per run
 *   npm run bench:proxy -- --duration 3 --warmup 1 --connections 16 --rounds 3
 *   npm run bench:proxy -- --profile           # and a CPU profile of our server on each of its routes
 *
 * With --rounds N the four runs alternate N times and each keeps its median run by throughput
 * (on a shared machine, load from elsewhere moves single runs by more than the difference).
 * A fourth line, a plain `@fastify/http-proxy` without any check in front of the same upstream,
 * says what any reverse proxy costs here. `npm run bench` prints the same lines at its end.
 *
 * Not measured: bearer tokens (a token for a resource needs RFC 8707 resource indicators at /token).
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numberFlag, readFlags } from './args.js';
import { measureProxy } from './proxy-line.js';

const USAGE = 'usage: npm run bench:proxy -- [--duration S] [--warmup S] [--connections N] [--rounds N] [--profile]';

async function main(): Promise<void> {
  const f = readFlags(process.argv.slice(2), { duration: 'string', warmup: 'string', connections: 'string', rounds: 'string', profile: 'boolean' }, USAGE);
  const profileDir = f.profile === true ? join(tmpdir(), 'proxy-bench', new Date().toISOString().replace(/[:.]/g, '-')) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const lines = await measureProxy({
    rounds: numberFlag(f.rounds, 'rounds', 1, 1, true),
    durationMs: numberFlag(f.duration, 'duration', 8, 0.5) * 1000,
    warmupMs: numberFlag(f.warmup, 'warmup', 2, 0) * 1000,
    connections: numberFlag(f.connections, 'connections', 32, 1, true),
    ...(profileDir ? { profileDir } : {}),
  });
  for (const line of lines) console.log(line);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
