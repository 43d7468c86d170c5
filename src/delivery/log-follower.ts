import type { EventStore, RecordedEvent, Subscription } from '../infrastructure/event-store/event-store.port.js';
import type { Clock } from '../infrastructure/nest/clock.js';
import { type LeaseFence, LeaseLostError } from '../infrastructure/read-store/lease.port.js';
import type { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';
import type { DeliveryFollowerSpec } from './delivery-kind.js';
import type { DeliverySender } from './delivery-sender.js';
import type { DeliveryStore } from './delivery-store.js';

const RETRY_MS = 1000;
/** How long a checkpoint that makes no delivery may wait to be stored: an event read again after a crash makes none either. */
const IDLE_CHECKPOINT_MS = 1000;
/**
 * The most events handled in one batch: a batch's reads (often answered from a cache, as
 * microtasks that let no request in) and its deliveries are bounded, and the event loop is
 * yielded between batches, so that a burst of events never holds up the request thread long.
 */
export const MAX_BATCH = 256;

/**
 * Follows the log from a follower's own checkpoint and turns the events its spec reads into
 * deliveries, stored with the checkpoint in one step: a crash (even kill -9) between the event
 * and the POST loses none, since either the deliveries are stored or the event is read again
 * at the next start.
 */
export class LogFollower {
  private subscription?: Subscription;
  private loop?: Promise<void>;
  private stopped = false;
  private buffer: RecordedEvent[] = [];
  private draining?: Promise<void>;
  /** The position handled but not yet stored (batches that made no delivery), and when a checkpoint was last stored. */
  private unstored?: number;
  private storedAt = 0;

  constructor(
    private readonly spec: DeliveryFollowerSpec,
    private readonly events: EventStore,
    private readonly runner: ProjectionRunner,
    private readonly store: DeliveryStore,
    private readonly sender: DeliverySender,
    private readonly clock: Clock,
    private readonly logger?: (message: string) => void,
    /** The lease this follower runs under, when servers share it: its writes are refused once the lease moved on. */
    private readonly fence?: LeaseFence,
  ) {}

  async start(): Promise<void> {
    const after = await this.store.checkpoint(this.spec.checkpoint);
    const sub = (this.subscription = this.events.subscribeToAll({ afterPosition: after, filter: { eventTypes: [...this.spec.eventTypes] } }));
    this.loop = (async () => {
      try {
        for await (const e of sub) {
          if (this.stopped) break;
          this.buffer.push(e);
          this.draining ??= new Promise((r) => setImmediate(r)).then(() => this.drain());
        }
      } catch (error) {
        if (!this.stopped) this.logger?.(`delivery follower ${this.spec.checkpoint} stopped: ${(error as Error).message}`);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.close();
    await this.loop;
    await this.draining;
    if (this.unstored !== undefined) await this.store.created([], this.spec.checkpoint, this.unstored, this.fence).catch(() => undefined);
  }

  /** Handles the buffered events batch by batch; a batch is retried until its deliveries are stored, since skipping it would lose them. */
  private async drain(): Promise<void> {
    while (this.buffer.length && !this.stopped) {
      const batch = this.buffer.length > MAX_BATCH ? this.buffer.slice(0, MAX_BATCH) : this.buffer;
      this.buffer = this.buffer.length > MAX_BATCH ? this.buffer.slice(MAX_BATCH) : [];
      try {
        await this.handle(batch);
        if (this.buffer.length) await new Promise((r) => setImmediate(r));
      } catch (error) {
        if (error instanceof LeaseLostError) {
          // Another server follows the log now, from the checkpoint it found: retrying would be refused every time.
          this.logger?.(`delivery follower ${this.spec.checkpoint}: ${error.message}`);
          this.stopped = true;
          this.buffer = [];
          break;
        }
        this.buffer = [...batch, ...this.buffer];
        this.logger?.(`delivery follower ${this.spec.checkpoint}: events up to ${batch[batch.length - 1].position} not handled, retrying: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
    this.draining = undefined;
  }

  /** The deliveries of a batch of events, stored with the position of its last event in one step. */
  private async handle(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1].position;
    if (this.spec.views.length) await this.runner.waitFor([...this.spec.views], last, 30_000);
    const now = this.clock.now().getTime();
    const deliveries = await this.spec.deliveriesOf(batch.filter((e) => this.spec.eventTypes.includes(e.type)), this.clock.now());
    // Most events make no delivery for most kinds (no webhook subscription, no back-channel client): their checkpoint is stored now and then, not at each batch.
    if (!deliveries.length && now - this.storedAt < IDLE_CHECKPOINT_MS) {
      this.unstored = last;
      return;
    }
    await this.store.created(deliveries, this.spec.checkpoint, last, this.fence);
    this.unstored = undefined;
    this.storedAt = now;
    for (const d of deliveries) this.sender.enqueue(d);
  }
}
