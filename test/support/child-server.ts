import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The built server (`dist/`, made by the test script before jest runs). */
export const MAIN = join(process.cwd(), 'dist/src/main.js');

/** How long `startChild` waits for the server to answer, unless told otherwise. */
const START_TIMEOUT_MS = 30_000;

export interface ChildServer {
  child: ChildProcess;
  /** What the server printed on stdout so far (its log). */
  output(): string;
}

/**
 * Starts `node dist/src/main.js` with `env` and waits until `readyUrl` answers 200.
 * `fileSizeLimitKb`: no file the server writes may grow beyond it (a soft `ulimit -f`, which
 * `prlimit --pid` can lift later); past it, writes fail as on a full disk. `startTimeoutMs`:
 * how long to wait (30 s by default); past it the server is killed and the start fails.
 */
export async function startChild(env: NodeJS.ProcessEnv, readyUrl: string, options: { fileSizeLimitKb?: number; startTimeoutMs?: number } = {}): Promise<ChildServer> {
  if (!existsSync(MAIN)) throw new Error('build the server first (npm run build)');
  const command = [process.execPath, MAIN];
  const limited = options.fileSizeLimitKb === undefined ? command : ['bash', '-c', 'ulimit -S -f "$1" && shift && exec "$@"', 'bash', String(options.fileSizeLimitKb), ...command];
  const child = spawn(limited[0], limited.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  // A deadline, not a count of tries: on a busy machine (another jest worker beside this one) a start takes longer, and is no less a start.
  for (const deadline = Date.now() + (options.startTimeoutMs ?? START_TIMEOUT_MS); Date.now() < deadline; ) {
    if (child.exitCode !== null) throw new Error(`server exited: ${err}`);
    try {
      if ((await fetch(readyUrl)).ok) return { child, output: () => out };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // Nothing outlives a failed start: a server left running would hold its port and a core.
  child.kill('SIGKILL');
  await exited(child);
  throw new Error(`server did not start (pid ${child.pid}, stopped)`);
}

export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

export async function stopChild(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await exited(child);
}
