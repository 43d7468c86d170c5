/**
 * Our server (dist/src/main.js) with the V8 sampling profiler under the parent's control,
 * for `npm run bench -- --profile`: the parent sends {cmd: 'start'} before a measured
 * window and {cmd: 'stop', file} after it, and gets {done: cmd} back. `--cpu-prof` cannot
 * be used here: the server's shutdown hooks end the process by a signal, and the profile
 * is only written on a normal exit.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

interface Command {
  cmd: 'start' | 'stop';
  file?: string;
}

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 250 });

process.on('message', (message: Command) => {
  void (async () => {
    try {
      if (message.cmd === 'start') {
        await session.post('Profiler.start');
      } else if (message.cmd === 'stop') {
        const { profile } = await session.post('Profiler.stop');
        if (message.file) writeFileSync(message.file, JSON.stringify(profile));
      }
      process.send?.({ done: message.cmd });
    } catch (error) {
      process.send?.({ done: message.cmd, error: (error as Error).message });
    }
  })();
});

await import('../src/main.js');
