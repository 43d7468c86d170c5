/**
 * Benchmark of the admin API's users routes with many users in one tenant.
 *
 *   npm run bench:central                      # 1,000,000 users
 *   npm run bench:central -- --users 100000    # quicker
 *
 * Options: --users N (users of the tenant `bench`, default 1000000), --tenants T (other
 * tenants, default 100), --requests R (sequential requests per read operation, default 2000),
 * --writes W (requests per write operation, default 100), --keep (leave the data directory).
 *
 * Steps:
 *  1. the server as shipped (`node dist/src/main.js`) starts once on a fresh data directory,
 *     applies the bootstrap file (the tenant `bench` with an admin client, T other tenants)
 *     and stops;
 *  2. N users are appended to its log as the create-user command writes them (see
 *     central-seed.ts), then the server's projection runner folds them into the views;
 *  3. the server starts again; one admin token (central:read central:write); each operation
 *     is timed over HTTP, one request at a time on one keep-alive connection: read one user
 *     (random ones, mostly not in the server's 20,000-document cache), the first page of 50,
 *     a deep page of 50 (after the id nine tenths of the way through), filter by e-mail
 *     (random users), create a user (scrypt of its password included), patch a user's name.
 *
 * Results are printed as a table and written as JSON under os.tmpdir().
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { numberFlag, readFlags } from './args.js';
import { catchUpViews, seededUser, seedUsers } from './central-seed.js';
import { HttpConnection } from './oauth-http.js';
import { startOurs } from './oauth-servers.js';

const USAGE = 'usage: node dist/bench/central.bench.js [--users N] [--tenants T] [--requests R] [--writes W] [--keep]';
const TENANT = 'bench';
const ADMIN_SECRET = 'bench-admin-secret-0123456789-0123456789-abc';
const PAGE = 50;

interface Options {
  users: number;
  tenants: number;
  requests: number;
  writes: number;
  keep: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const f = readFlags(argv, { users: 'string', tenants: 'string', requests: 'string', writes: 'string', keep: 'boolean' }, USAGE);
  return {
    users: numberFlag(f.users, 'users', 1_000_000, 1, true),
    tenants: numberFlag(f.tenants, 'tenants', 100, 0, true),
    requests: numberFlag(f.requests, 'requests', 2_000, 1, true),
    writes: numberFlag(f.writes, 'writes', 100, 1, true),
    keep: f.keep === true,
  };
}

function bootstrapYaml(otherTenants: number): string {
  let yaml = `tenants:
  - id: ${TENANT}
    clients:
      - client_id: admin
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "central:read central:write"
`;
  for (let t = 0; t < otherTenants; t++) yaml += `  - id: other-${t}\n`;
  return yaml;
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface OpResult {
  operation: string;
  requests: number;
  p50: number;
  p99: number;
  max: number;
}

/** Runs `op(i)` `count` times one after another; every answer must have the expected status. */
async function timed(operation: string, count: number, expected: number, op: (i: number) => Promise<{ status: number; body: string }>): Promise<OpResult> {
  const ms: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const res = await op(i);
    ms.push(performance.now() - t0);
    if (res.status !== expected) throw new Error(`${operation}: ${res.status} ${res.body.slice(0, 300)}`);
  }
  ms.sort((a, b) => a - b);
  return { operation, requests: count, p50: percentile(ms, 50), p99: percentile(ms, 99), max: ms[ms.length - 1] };
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'central-bench-'));
  const bootstrapFile = join(dir, 'bootstrap.yaml');
  writeFileSync(bootstrapFile, bootstrapYaml(o.tenants));
  const file = join(dir, 'authserver.db');
  try {
    log(`bootstrap: tenant ${TENANT} and ${o.tenants} others`);
    await (await startOurs({ profile: false, keepData: true, dataDir: dir, bootstrapFile, readyTenant: TENANT })).stop();

    log(`seeding ${o.users.toLocaleString('en-US')} users`);
    const seed = await seedUsers(file, TENANT, o.users, 10_000, log);
    log(`  ${seed.seconds.toFixed(1)} s; folding them into the views`);
    const fold = await catchUpViews(file);
    log(`  ${fold.seconds.toFixed(1)} s for ${fold.events.toLocaleString('en-US')} events`);

    const startedAt = performance.now();
    const server = await startOurs({ profile: false, keepData: true, dataDir: dir, bootstrapFile, readyTenant: TENANT });
    const restartSeconds = (performance.now() - startedAt) / 1000;
    const results: OpResult[] = [];
    try {
      const http = new HttpConnection('127.0.0.1', server.port);
      const basic = Buffer.from(`admin:${ADMIN_SECRET}`).toString('base64');
      const tokenRes = await http.request('POST', `/${TENANT}/token`, { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=client_credentials&scope=central%3Aread%20central%3Awrite');
      if (tokenRes.status !== 200) throw new Error(`no admin token: ${tokenRes.status} ${tokenRes.body}`);
      const auth = { authorization: `Bearer ${(JSON.parse(tokenRes.body) as { access_token: string }).access_token}` };
      const base = `/${TENANT}/configuration/users`;
      const sample = seed.sample;
      const pick = (i: number) => sample[(i * 7919) % sample.length];
      const deepAfter = [...sample.map((s) => s.id)].sort()[Math.floor(sample.length * 0.9)];

      log('measuring');
      results.push(await timed('read one user', o.requests, 200, (i) => http.request('GET', `${base}/${pick(i).id}`, auth)));
      results.push(await timed(`list: first page of ${PAGE}`, o.requests, 200, () => http.request('GET', `${base}?limit=${PAGE}`, auth)));
      results.push(await timed(`list: deep page of ${PAGE} (after 90% of ids)`, o.requests, 200, () => http.request('GET', `${base}?limit=${PAGE}&after=${deepAfter}`, auth)));
      results.push(await timed('filter by email', o.requests, 200, (i) => http.request('GET', `${base}?email=${encodeURIComponent(seededUser(pick(i).n).email)}`, auth)));
      const json = { ...auth, 'content-type': 'application/json' };
      results.push(
        await timed('create a user', o.writes, 201, (i) => http.request('POST', base, json, JSON.stringify({ username: `new-user-${i}`, password: 'a long enough password for a new user', email: `new-${i}@bench.example` }))),
      );
      const patchJson = { ...auth, 'content-type': 'application/merge-patch+json' };
      results.push(await timed('patch a user', o.writes, 200, (i) => http.request('PATCH', `${base}/${pick(i).id}`, patchJson, JSON.stringify({ name: `Renamed ${i}` }))));
      http.close();
    } finally {
      await server.stop();
    }

    const summary = {
      users: o.users,
      otherTenants: o.tenants,
      seedSeconds: seed.seconds,
      seedEvents: seed.events,
      foldSeconds: fold.seconds,
      foldEvents: fold.events,
      restartSeconds,
      results,
    };
    console.log(`\nusers ${o.users.toLocaleString('en-US')} in tenant ${TENANT}, ${o.tenants} other tenants`);
    console.log(`seed ${seed.seconds.toFixed(1)} s (${Math.round(seed.events / seed.seconds).toLocaleString('en-US')} events/s); views built in ${fold.seconds.toFixed(1)} s (${fold.events.toLocaleString('en-US')} events); restart ${restartSeconds.toFixed(1)} s\n`);
    console.log('| operation | requests | p50 ms | p99 ms | max ms |');
    console.log('|---|---|---|---|---|');
    for (const r of results) console.log(`| ${r.operation} | ${r.requests} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.max.toFixed(2)} |`);
    const out = join(tmpdir(), `central-bench-${Date.now()}.json`);
    writeFileSync(out, JSON.stringify(summary, null, 2));
    console.log(`\nresults: ${out}`);
  } finally {
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
    else log(`data kept in ${dir}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
