/**
 * Introspection latency while the sign-in page is flooded with guesses: the built server as a
 * child process on a fresh data directory, one access token introspected one request at a
 * time, first alone, then while `--in-flight` sign-ins with random usernames run without a
 * pause. Prints the latency percentiles of both phases and what the sign-ins were answered.
 *
 * `--flood metadata` sends the same flood to the discovery document instead: what requests at
 * that rate cost the server whatever they ask, for comparison.
 *
 *   npm run build && node dist/bench/login-flood.bench.js [--requests 300] [--in-flight 8] [--flood login|metadata]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { numberFlag, readFlags } from './args.js';

const USAGE = 'usage: node dist/bench/login-flood.bench.js [--requests N] [--in-flight N] [--flood login|metadata]';
const SECRET = 'bench-secret-0123456789-0123456789-abcdef';
const REDIRECT = 'http://127.0.0.1:9999/cb';

const BOOTSTRAP = `
tenants:
  - id: acme
    clients:
      - client_id: web
        client_secret: "${SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        first_party: true
      - client_id: service
        client_secret: "${SECRET}"
        grant_types: [client_credentials]
        scope: "orders:read"
    users:
      - username: alice
        password: "a long and unusual password"
`;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function start(dataDir: string, port: number): Promise<ChildProcess> {
  const file = join(dataDir, 'bootstrap.yaml');
  writeFileSync(file, BOOTSTRAP);
  const env = { ...process.env, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir, BOOTSTRAP_FILE: file, LOG_LEVEL: 'error' };
  const child = spawn(process.execPath, [join(import.meta.dirname, '../src/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 400; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/acme/.well-known/openid-configuration`)).ok) return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('server did not start');
}

/** A sign-in form of its own (interaction and its cookie), to post guesses to. */
async function loginForm(issuer: string): Promise<{ action: string; interaction: string; cookie: string }> {
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const url = `${issuer}/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'web', redirect_uri: REDIRECT, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' })}`;
  const res = await fetch(url, { redirect: 'manual' });
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const page = await (await fetch(new URL(res.headers.get('location')!, url), { headers: { cookie } })).text();
  const interaction = /name="interaction" value="([^"]*)"/.exec(page)![1].replace(/&amp;/g, '&');
  return { action: `${issuer}/login`, interaction, cookie };
}

function percentiles(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(1);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms, max ${s[s.length - 1].toFixed(1)} ms (${s.length} requests)`;
}

async function introspections(issuer: string, token: string, n: number): Promise<number[]> {
  const auth = `Basic ${Buffer.from(`service:${SECRET}`).toString('base64')}`;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(`${issuer}/introspect`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }) });
    const body = (await res.json()) as { active?: boolean };
    if (!body.active) throw new Error('token not active');
    out.push(performance.now() - t);
  }
  return out;
}

async function main(): Promise<void> {
  const flags = readFlags(process.argv.slice(2), { requests: 'string', 'in-flight': 'string', flood: 'string' }, USAGE);
  const requests = numberFlag(flags.requests, 'requests', 300, 1, true);
  const inFlight = numberFlag(flags['in-flight'], 'in-flight', 8, 1, true);
  const target = flags.flood ?? 'login';
  if (target !== 'login' && target !== 'metadata') throw new Error(`--flood is login or metadata\n${USAGE}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'login-flood-'));
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}/acme`;
  const child = await start(dataDir, port);
  try {
    const tokenRes = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`service:${SECRET}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const { access_token: token } = (await tokenRes.json()) as { access_token: string };
    await introspections(issuer, token, 50);
    console.log(`introspection alone:          ${percentiles(await introspections(issuer, token, requests))}`);

    const statuses = new Map<number, number>();
    let flooding = true;
    const forms = await Promise.all(Array.from({ length: inFlight }, () => loginForm(issuer)));
    const flood = forms.map(async (form) => {
      while (flooding) {
        const res = target === 'metadata' ? await fetch(`${issuer}/.well-known/openid-configuration`) : await fetch(form.action, {
          method: 'POST',
          headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: new URL(issuer).origin },
          body: new URLSearchParams({ interaction: form.interaction, username: `u-${randomBytes(6).toString('hex')}`, password: 'guess' }),
        });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    });
    const during = await introspections(issuer, token, requests);
    flooding = false;
    await Promise.all(flood);
    console.log(`introspection during a flood: ${percentiles(during)}`);
    console.log(`${target === 'login' ? 'sign-ins' : 'metadata requests'} answered (${inFlight} in flight): ${[...statuses].sort().map(([s, n]) => `${n} x ${s}`).join(', ')}`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
