import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../nest/clock.js';
import { OncePerMinute } from '../../shared/failure-budget.js';
import { EVENT_STORE, type EventStore } from './event-store.port.js';

/** How often expired single-use streams are swept. */
export const SWEEP_EVERY_MS = 60_000;
/** Streams deleted per writer transaction, so a sweep never holds up appends for long. */
export const SWEEP_BATCH = 500;
/** Batches per tick at most: a backlog is worked off over several ticks. */
const BATCHES_PER_TICK = 20;

const markFailures = new OncePerMinute((line) => new Logger('Storage').warn(line));

/**
 * Marks a single-use stream to expire at `at` (epoch ms), without holding up the caller: the
 * answer does not depend on it, and a store's later sweep takes the marks asked for before it.
 * A mark that fails leaves the stream in the log, which costs only space.
 */
export function expireLater(events: EventStore, streamId: string, at: number): void {
  events.expireStream(streamId, at).catch((e: unknown) => markFailures.log(`a single-use stream was not marked to expire: ${e instanceof Error ? e.message : String(e)}`));
}

/**
 * Deletes the single-use streams (used jtis, pushed requests, device authorizations) whose
 * expiry mark has passed (see EventStore.expireStream), every minute by the injected clock.
 */
@Injectable()
export class ExpiredStreams implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly failures = new OncePerMinute((line) => new Logger('Storage').warn(line));
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), SWEEP_EVERY_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep as of the clock's now; returns how many streams went. A tick while one runs joins it. */
  tick(): Promise<number> {
    this.running ??= this.sweep().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweep(): Promise<number> {
    let total = 0;
    try {
      for (let i = 0; i < BATCHES_PER_TICK; i++) {
        const n = await this.events.sweepExpired(this.clock.now().getTime(), SWEEP_BATCH);
        total += n;
        if (n < SWEEP_BATCH) break;
      }
    } catch (e) {
      this.failures.log(`expired streams were not swept: ${e instanceof Error ? e.message : String(e)}`);
    }
    return total;
  }
}
