import { PasswordQueue, PasswordQueueFull } from './password-queue.js';

/** A hash that finishes when the test says so. */
function held(): { hash: () => Promise<string>; release(): void; started: boolean } {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  const h = {
    started: false,
    release: () => release(),
    hash: async () => {
      h.started = true;
      await done;
      return 'hashed';
    },
  };
  return h;
}

const tick = () => new Promise((r) => setImmediate(r));

describe('PasswordQueue', () => {
  it('runs at most `concurrency` hashes at once, queues `waiting` more, and refuses the next with a Retry-After', async () => {
    const queue = new PasswordQueue(1, 1, () => 0);
    const [a, b] = [held(), held()];
    const first = queue.run(a.hash);
    const second = queue.run(b.hash);
    await tick();
    expect([a.started, b.started]).toEqual([true, false]);
    const refused = queue.run(async () => 'never');
    await expect(refused).rejects.toBeInstanceOf(PasswordQueueFull);
    // Asked beforehand, it says so too.
    expect(queue.refusal()).toBeInstanceOf(PasswordQueueFull);
    // Two ahead (one running, one waiting) at the first guess of 100 ms each: 1 s at least.
    await expect(refused).rejects.toHaveProperty('retryAfterSeconds', 1);
    a.release();
    expect(await first).toBe('hashed');
    await tick();
    expect(b.started).toBe(true);
    b.release();
    expect(await second).toBe('hashed');
    // Room again.
    expect(queue.refusal()).toBeUndefined();
    expect(await queue.run(async () => 'again')).toBe('again');
  });

  it('with no queue, refuses as soon as every slot is taken; an unbounded run waits instead', async () => {
    let now = 0;
    const queue = new PasswordQueue(2, 0, () => now);
    const [a, b] = [held(), held()];
    const runs = [queue.run(a.hash), queue.run(b.hash)];
    await tick();
    await expect(queue.run(async () => 'x')).rejects.toBeInstanceOf(PasswordQueueFull);
    let ranUnbounded = false;
    const operator = queue.run(async () => (ranUnbounded = true), false);
    await tick();
    expect(ranUnbounded).toBe(false);
    now = 20_000;
    a.release();
    await runs[0];
    await operator;
    expect(ranUnbounded).toBe(true);
    // Hashes are now known to be slow (one took 20 s; the average moved from 100 ms to 3.3 s):
    // two running ahead on two slots, the Retry-After says 4 s.
    const c = held();
    const third = queue.run(c.hash);
    await tick();
    await expect(queue.run(async () => 'x')).rejects.toHaveProperty('retryAfterSeconds', 4);
    b.release();
    c.release();
    await Promise.all([runs[1], third]);
  });

  it('frees the slot of a hash that fails', async () => {
    const queue = new PasswordQueue(1, 0);
    await expect(queue.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await queue.run(async () => 'ok')).toBe('ok');
  });
});
