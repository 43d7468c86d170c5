import { LeaseLostError } from '../read-store/lease.port.js';
import type { EventStore, RecordedEvent, Subscription } from './event-store.port.js';

const RETRY_MS = 1000;

export interface LogTailOptions {
  /** Named in what is logged. */
  name: string;
  eventTypes: readonly string[];
  /** Handles one batch. A throw has it handled again after a pause, since skipping it would lose what it makes; a LeaseLostError stops the tail. */
  handle(batch: readonly RecordedEvent[]): Promise<void>;
  /** The most events in one batch (the event loop is yielded between batches); none: all that came. */
  maxBatch?: number;
  /** Told that a batch's write was refused for a moved fence: the tail has stopped. */
  onLeaseLost?: () => void;
  logger?: (message: string) => void;
}

/**
 * Follows the log from a position and hands what comes to `handle` in batches, one at a time:
 * the work of a follower that makes something durable (deliveries, SETs) from the events, with
 * its checkpoint in the same write. A failed batch is retried until it is handled; a batch
 * refused because another server holds the follower's lease now stops the tail.
 */
export class LogTail {
  private subscription?: Subscription;
  private loop?: Promise<void>;
  private buffer: RecordedEvent[] = [];
  private draining?: Promise<void>;
  private ended = false;

  constructor(
    private readonly events: EventStore,
    private readonly options: LogTailOptions,
  ) {}

  /** Whether it has stopped (by `stop`, or when its lease was lost). */
  get stopped(): boolean {
    return this.ended;
  }

  /** Follows from after `after`; a tail stopped meanwhile (while its caller read the checkpoint) does not start. */
  start(after: number): void {
    if (this.ended) return;
    const sub = (this.subscription = this.events.subscribeToAll({ afterPosition: after, filter: { eventTypes: [...this.options.eventTypes] } }));
    this.loop = (async () => {
      try {
        for await (const e of sub) {
          if (this.ended) break;
          this.buffer.push(e);
          this.draining ??= new Promise((r) => setImmediate(r)).then(() => this.drain());
        }
      } catch (error) {
        if (!this.ended) this.options.logger?.(`${this.options.name} stopped: ${(error as Error).message}`);
      }
    })();
  }

  /** Stops following; the batch under way is finished first. */
  async stop(): Promise<void> {
    this.ended = true;
    await this.subscription?.close();
    await this.loop;
    await this.draining;
    this.subscription = undefined;
  }

  private async drain(): Promise<void> {
    const max = this.options.maxBatch ?? Infinity;
    while (this.buffer.length && !this.ended) {
      const batch = this.buffer.length > max ? this.buffer.slice(0, max) : this.buffer;
      this.buffer = this.buffer.length > max ? this.buffer.slice(max) : [];
      try {
        await this.options.handle(batch);
        if (this.buffer.length) await new Promise((r) => setImmediate(r));
      } catch (error) {
        if (error instanceof LeaseLostError) {
          // Another server follows now, from the checkpoint it found: retrying would be refused every time.
          this.options.logger?.(`${this.options.name}: ${error.message}`);
          this.ended = true;
          this.buffer = [];
          this.options.onLeaseLost?.();
          break;
        }
        this.buffer = [...batch, ...this.buffer];
        this.options.logger?.(`${this.options.name}: events up to ${batch[batch.length - 1].position} not handled, retrying: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
    this.draining = undefined;
  }
}
