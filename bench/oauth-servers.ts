/**
 * Starts the two servers of the comparison as child processes of the benchmark, each on a
 * free port, and waits until they answer their discovery document.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrapYaml, jwtClientJwks, TENANT } from './oauth-fixtures.js';

/** dist/ (this file is dist/bench/oauth-servers.js once built). */
const DIST = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface ServerProcess {
  name: string;
  port: number;
  pid: number;
  /** Starts or stops the CPU profiler (only when started with `profile`). */
  profile?(cmd: 'start' | 'stop', file?: string): Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolvePort(port));
    });
  });
}

function tail(lines: string[], chunk: Buffer): void {
  lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  if (lines.length > 40) lines.splice(0, lines.length - 40);
}

async function waitUntilReady(name: string, child: ChildProcess, url: string, output: string[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited (${signal ?? code})`));
  for (;;) {
    if (exited) throw new Error(`${name} ${exited} before it was ready:\n${output.join('\n')}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name} not ready after ${timeoutMs} ms:\n${output.join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function stopper(child: ChildProcess, cleanup?: () => void): () => Promise<void> {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    cleanup?.();
  };
}

const CHILD_ENV = { ...process.env, NODE_ENV: 'production' };

/**
 * Our server as shipped (`node dist/src/main.js`: durable embedded store, fsync'd group
 * commit) with a fresh data directory under os.tmpdir() and the bench bootstrap file. With
 * `profile`, it runs under bench/oauth-profiled-server.ts instead.
 */
export async function startOurs(options: {
  profile: boolean;
  keepData: boolean;
  /** An existing data directory and bootstrap file (bench:central starts the server twice on one). */
  dataDir?: string;
  bootstrapFile?: string;
  /** The tenant whose discovery document says the server is ready. */
  readyTenant?: string;
}): Promise<ServerProcess & { dataDir: string }> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'oauth-bench-ours-'));
  const bootstrapFile = options.bootstrapFile ?? join(dataDir, 'bootstrap.yaml');
  if (!options.bootstrapFile) writeFileSync(bootstrapFile, bootstrapYaml());
  const port = await freePort();
  const env = { ...CHILD_ENV, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir, BOOTSTRAP_FILE: bootstrapFile, LOG_LEVEL: 'error' };
  const script = options.profile ? join(DIST, 'bench', 'oauth-profiled-server.js') : join(DIST, 'src', 'main.js');
  const child = spawn(process.execPath, [script], { env, stdio: options.profile ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout!.on('data', (c: Buffer) => tail(output, c));
  child.stderr!.on('data', (c: Buffer) => tail(output, c));
  await waitUntilReady('our server', child, `http://127.0.0.1:${port}/${options.readyTenant ?? TENANT}/.well-known/openid-configuration`, output);
  const profile = options.profile
    ? (cmd: 'start' | 'stop', file?: string) =>
        new Promise<void>((resolveDone, reject) => {
          const onMessage = (m: { done?: string; error?: string }) => {
            if (m.done !== cmd) return;
            child.off('message', onMessage);
            if (m.error) reject(new Error(`profiler ${cmd}: ${m.error}`));
            else resolveDone();
          };
          child.on('message', onMessage);
          child.send({ cmd, file });
        })
    : undefined;
  return {
    name: 'ours',
    port,
    pid: child.pid!,
    dataDir,
    profile,
    stop: stopper(child, () => {
      if (!options.keepData) rmSync(dataDir, { recursive: true, force: true });
    }),
  };
}

/** oidc-provider, in its own process like ours (`node dist/bench/peer-oidc-provider.js`). */
export async function startPeer(): Promise<ServerProcess> {
  const port = await freePort();
  const env = { ...CHILD_ENV, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, BENCH_ASSERTION_JWKS: JSON.stringify(jwtClientJwks()) };
  const child = spawn(process.execPath, [join(DIST, 'bench', 'peer-oidc-provider.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout!.on('data', (c: Buffer) => tail(output, c));
  child.stderr!.on('data', (c: Buffer) => {
    tail(output, c);
    process.stderr.write(c);
  });
  await waitUntilReady('peer', child, `http://127.0.0.1:${port}/.well-known/openid-configuration`, output);
  return { name: 'peer', port, pid: child.pid!, stop: stopper(child) };
}
