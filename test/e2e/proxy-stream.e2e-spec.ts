import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { adminClients, adminToken } from '../support/admin.js';
import { type ChildServer, startChild, stopChild } from '../support/child-server.js';
import { freePort, type TestServer } from '../support/server.js';

const MB = 1024 * 1024;
const SIZE = 100 * MB;
const CHUNK = 64 * 1024;

/** `count` chunks of 64 KiB, each different (a body that compresses or repeats proves nothing). */
function chunks(total: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const chunk = Buffer.alloc(CHUNK, sent / CHUNK);
      sent += CHUNK;
      this.push(chunk);
    },
  });
}

/** The server process's resident set now and at its peak since the last reset, in bytes (Linux /proc). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Resets the process's peak resident set to its current one (proc(5), clear_refs value 5). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

let upstream: Server;
let child: ChildServer;
let base: string;
let dataDir: string;
const received: { bytes: number; sha256: string }[] = [];

beforeAll(async () => {
  // The upstream takes an upload whole, hashing it as it comes, and serves a download of the size asked for.
  upstream = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return void chunks(Number(new URL(req.url!, 'http://x').searchParams.get('size'))).pipe(res);
    }
    const hash = createHash('sha256');
    let bytes = 0;
    req.on('data', (d: Buffer) => {
      bytes += d.length;
      hash.update(d);
    });
    req.on('end', () => {
      received.push({ bytes, sha256: hash.digest('hex') });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const upstreamPort = (upstream.address() as AddressInfo).port;
  dataDir = mkdtempSync(join(tmpdir(), 'authserver-proxy-stream-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  writeFileSync(
    join(dataDir, 'bootstrap.yaml'),
    `tenants:
  - id: acme
    clients:${adminClients()}
    resources:
      - { id: files, identifier: "https://files.example.com", upstream_url: "http://127.0.0.1:${upstreamPort}" }
`,
  );
  child = await startChild({ ...process.env, PORT: String(port), PUBLIC_URL: base, DATA_DIR: dataDir, BOOTSTRAP_FILE: join(dataDir, 'bootstrap.yaml'), LOG_LEVEL: 'error'}, `${base}/acme/.well-known/openid-configuration`);
  const admin = await adminToken({ issuer: (t = 'acme') => `${base}/${t}` } as TestServer, 'acme');
  const res = await fetch(`${base}/acme/configuration/resources/files`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({ routes: [{ methods: ['GET', 'POST'], path: '/**', public: true }] }),
  });
  expect(res.status).toBe(200);
});

afterAll(async () => {
  if (child) await stopChild(child.child);
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
  rmSync(dataDir, { recursive: true, force: true });
});

function upload(size: number): Promise<{ status: number; body: string }> {
  const url = new URL(`${base}/acme/resources/files/upload`);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    pipeline(chunks(size), req).catch(reject);
  });
}

async function download(size: number): Promise<{ status: number; bytes: number }> {
  const res = await fetch(`${base}/acme/resources/files/download?size=${size}`);
  let bytes = 0;
  for await (const chunk of res.body!) bytes += (chunk as Uint8Array).length;
  return { status: res.status, bytes };
}

/** The server's memory growth above its resident set before: what a buffered body would show. */
async function growthDuring(run: () => Promise<unknown>): Promise<number> {
  const pid = child.child.pid!;
  const before = memory(pid).rss;
  resetPeak(pid);
  await run();
  return memory(pid).peak - before;
}

describe('proxy: large bodies stream through', () => {
  it('streams a 100 MB upload to the upstream, and a 100 MB download back, without holding them in memory', async () => {
    // Warm up: the connection pool, the JIT, and the heap and allocator at their steady size
    // (the first large body through a fresh process grows them by a few tens of MB, once; later
    // ones, of any size, do not).
    expect((await upload(50 * MB)).status).toBe(200);
    expect((await download(8 * MB)).bytes).toBe(8 * MB);
    const expected = createHash('sha256');
    for await (const c of chunks(SIZE)) expected.update(c as Buffer);
    let answer: { status: number; body: string } | undefined;
    const up = await growthDuring(async () => (answer = await upload(SIZE)));
    expect(answer!.status).toBe(200);
    expect(received.at(-1)).toEqual({ bytes: SIZE, sha256: expected.digest('hex') });
    let got: { status: number; bytes: number } | undefined;
    const down = await growthDuring(async () => (got = await download(SIZE)));
    expect(got).toEqual({ status: 200, bytes: SIZE });
    process.stdout.write(`proxy streaming: server peak resident set grew ${(up / MB).toFixed(1)} MB during a 100 MB upload, ${(down / MB).toFixed(1)} MB during a 100 MB download\n`);
    expect(up).toBeLessThan(MAX_GROWTH);
    expect(down).toBeLessThan(MAX_GROWTH);
  });
});

/**
 * A buffered 100 MB body would show as 100 MB or more. Below this is the slack of the garbage
 * collector: the 64 KiB buffers of socket reads live outside V8's heap until a collection frees
 * them, and the peak resident set varies from 0 to about 27 MB between runs, with bodies of 100
 * or 300 MB alike (it does not grow with the body).
 */
const MAX_GROWTH = 40 * MB;
