/** The password-hash queue is full: the caller should answer 429 with this `Retry-After`. */
export class PasswordQueueFull extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`password hashing is busy; retry in ${retryAfterSeconds} s`);
    this.name = 'PasswordQueueFull';
  }
}

/** What a hash is assumed to take before one has been timed. */
const FIRST_GUESS_MS = 100;

/**
 * Password hashes (scrypt, 32 MiB each) run at most `concurrency` at a time, with at most
 * `waiting` more queued behind them. Each running hash holds one thread of libuv's pool (four
 * by default), which JWT signing and other crypto share: the cap keeps the rest of the pool,
 * and of the CPU, for token clients however many sign-ins arrive. A sign-in beyond the queue
 * is refused at once instead of slowing everyone down.
 */
export class PasswordQueue {
  private running = 0;
  private readonly queue: Array<() => void> = [];
  /** A moving average of how long one hash takes, for `Retry-After`. */
  private averageMs = FIRST_GUESS_MS;

  constructor(
    readonly concurrency: number,
    readonly waiting: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Whether a bounded run would be refused now; its `Retry-After` when so. */
  refusal(): PasswordQueueFull | undefined {
    return this.running >= this.concurrency && this.queue.length >= this.waiting ? new PasswordQueueFull(this.retryAfter()) : undefined;
  }

  /**
   * Runs `hash` once a slot is free. `bounded` (the default, for what anyone on the Internet can
   * start): throws PasswordQueueFull when every slot and every place in the queue is taken.
   * Unbounded waits are for the operator's own work (bootstrap, admin commands).
   */
  async run<T>(hash: () => Promise<T>, bounded = true): Promise<T> {
    if (this.running >= this.concurrency) {
      if (bounded && this.queue.length >= this.waiting) throw this.refusal()!;
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.running++;
    }
    const started = this.clock();
    try {
      return await hash();
    } finally {
      this.averageMs = 0.8 * this.averageMs + 0.2 * (this.clock() - started);
      // The slot passes straight to the next in line, so `running` never dips below the cap while some wait.
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Seconds until the queue has room again, roughly: everything ahead shared among the slots. */
  private retryAfter(): number {
    const ahead = this.running + this.queue.length;
    return Math.max(1, Math.ceil((ahead * this.averageMs) / this.concurrency / 1000));
  }
}
