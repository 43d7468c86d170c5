import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The built server (`dist/`, made by the test script before jest runs). */
export const MAIN = join(process.cwd(), 'dist/src/main.js');

export interface ChildServer {
  child: ChildProcess;
  /** What the server printed on stdout so far (its log). */
  output(): string;
}

/**
 * Starts `node dist/src/main.js` with `env` and waits until `readyUrl` answers 200.
 * `fileSizeLimitKb`: no file the server writes may grow beyond it (a soft `ulimit -f`, which
 * `prlimit --pid` can lift later); past it, writes fail as on a full disk.
 */
export async function startChild(env: NodeJS.ProcessEnv, readyUrl: string, options: { fileSizeLimitKb?: number } = {}): Promise<ChildServer> {
  if (!existsSync(MAIN)) throw new Error('build the server first (npm run build)');
  const command = [process.execPath, MAIN];
  const limited = options.fileSizeLimitKb === undefined ? command : ['bash', '-c', 'ulimit -S -f "$1" && shift && exec "$@"', 'bash', String(options.fileSizeLimitKb), ...command];
  const child = spawn(limited[0], limited.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited: ${err}`);
    try {
      if ((await fetch(readyUrl)).ok) return { child, output: () => out };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('server did not start');
}

export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

export async function stopChild(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await exited(child);
}
