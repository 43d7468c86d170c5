/**
 * The ceiling of this machine for the client_credentials line of `npm run bench`: a bare
 * node:http server that answers every POST with a fresh ES256 access token signed on the
 * thread pool, and does nothing else (no framework, no client check, no storage). It is
 * driven by the same load loop, connections and durations as the comparison, so its figure
 * says how much of the machine any server doing that line can get.
 *
 *   npm run bench:floor                       # 32 connections, 2 s warm-up + 8 s
 *   npm run bench:floor -- --duration 3 --connections 64
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { numberFlag, readFlags } from './args.js';
import { HttpConnection } from './oauth-http.js';
import { runLoad } from './oauth-load.js';
import { freePort } from './oauth-servers.js';

const USAGE = 'usage: npm run bench:floor -- [--duration S] [--warmup S] [--connections N]';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function serve(port: number): void {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const scope = new URLSearchParams(Buffer.concat(chunks).toString()).get('scope') ?? '';
      const now = Math.floor(Date.now() / 1000);
      const input = `${b64({ alg: 'ES256', kid: 'floor', typ: 'at+jwt' })}.${b64({ iss: 'http://127.0.0.1', sub: 'bench', aud: 'http://127.0.0.1', client_id: 'bench', scope, jti: randomUUID(), iat: now, exp: now + 300 })}`;
      sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }, (err, signature) => {
        res.writeHead(err ? 500 : 200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(err ? '{}' : JSON.stringify({ access_token: `${input}.${signature.toString('base64url')}`, token_type: 'Bearer', expires_in: 300, scope }));
      });
    });
  }).listen(port, '127.0.0.1', () => process.send?.('ready'));
}

async function main(): Promise<void> {
  const f = readFlags(process.argv.slice(2), { duration: 'string', warmup: 'string', connections: 'string' }, USAGE);
  const duration = numberFlag(f.duration, 'duration', 8, 0.1);
  const warmup = numberFlag(f.warmup, 'warmup', 2, 0);
  const connections = numberFlag(f.connections, 'connections', 32, 1, true);
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [fileURLToPath(import.meta.url)], { env: { ...process.env, FLOOR_PORT: String(port) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the floor server exited (${code}) before it was ready`)));
    });
    const clients = Array.from({ length: connections }, () => new HttpConnection('127.0.0.1', port));
    const body = 'grant_type=client_credentials&scope=api%3Aread';
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const r = await runLoad(
      clients,
      async (c) => {
        const res = await c.request('POST', '/token', headers, body);
        return res.status === 200 && res.body.includes('"access_token"') ? true : `status ${res.status}`;
      },
      { warmupMs: warmup * 1000, durationMs: duration * 1000 },
      child.pid,
    );
    for (const c of clients) c.close();
    const cpu = r.serverCpu === undefined ? '' : `; server CPU ${(r.serverCpu * 100).toFixed(0)}%`;
    console.log(`floor (node:http + ES256, nothing stored): ${Math.round(r.rps).toLocaleString('en-US')} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ${r.errors} errors${cpu}, load generator CPU ${(r.clientCpu * 100).toFixed(0)}%`);
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.env.FLOOR_PORT) serve(Number(process.env.FLOOR_PORT));
else
  main().catch((error: Error) => {
    console.error(error.message);
    process.exit(1);
  });
