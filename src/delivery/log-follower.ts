import type { EventStore, RecordedEvent } from '../infrastructure/event-store/event-store.port.js';
import { LogTail } from '../infrastructure/event-store/log-tail.js';
import type { Clock } from '../infrastructure/nest/clock.js';
import type { LeaseFence } from '../infrastructure/read-store/lease.port.js';
import type { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';
import type { DeliveryFollowerSpec } from './delivery-kind.js';
import type { DeliverySender } from './delivery-sender.js';
import type { DeliveryStore } from './delivery-store.js';

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
  private readonly tail: LogTail;
  /** The position handled but not yet stored (batches that made no delivery), and when a checkpoint was last stored. */
  private unstored?: number;
  private storedAt = 0;

  constructor(
    private readonly spec: DeliveryFollowerSpec,
    events: EventStore,
    private readonly runner: ProjectionRunner,
    private readonly store: DeliveryStore,
    private readonly sender: DeliverySender,
    private readonly clock: Clock,
    private readonly logger?: (message: string) => void,
    /** The lease this follower runs under, when servers share it: its writes are refused once the lease moved on. */
    private readonly fence?: LeaseFence,
  ) {
    this.tail = new LogTail(events, { name: `delivery follower ${spec.checkpoint}`, eventTypes: spec.eventTypes, handle: (batch) => this.handle(batch), maxBatch: MAX_BATCH, logger });
  }

  async start(): Promise<void> {
    this.tail.start(await this.store.checkpoint(this.spec.checkpoint));
  }

  async stop(): Promise<void> {
    await this.tail.stop();
    if (this.unstored !== undefined) await this.store.created([], this.spec.checkpoint, this.unstored, this.fence).catch(() => undefined);
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
