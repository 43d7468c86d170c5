import { startChild } from './support/child-server.js';
import { freePort } from './support/server.js';
import { tempDir } from './support/temp-dir.js';

/** Whether a process with this id still exists (signal 0 only asks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
}

describe('startChild', () => {
  it('kills a server that does not answer in time, so that none outlives a failed start', async () => {
    const dataDir = tempDir('authserver-child-');
    const env = { ...process.env, PORT: String(await freePort()), DATA_DIR: dataDir, BOOTSTRAP_FILE: '', LOG_LEVEL: 'error' };
    // Nothing listens where it is told to look: the start cannot succeed.
    const failed = await startChild(env, `http://127.0.0.1:${await freePort()}/`, { startTimeoutMs: 300 }).then(
      () => 'started',
      (e: Error) => e.message,
    );
    expect(failed).toMatch(/^server did not start \(pid \d+, stopped\)$/);
    expect(alive(Number(/pid (\d+)/.exec(failed)![1]))).toBe(false);
  });
});
