import { Inject, Injectable } from '@nestjs/common';
import { type DocumentWrite, READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';

/**
 * One logout token to deliver to one client for one ended session. Kept in the read store
 * (view `backchannel_deliveries`) from the moment the follower read the event that ended the
 * session until the receiver took it; a dead letter stays until it is redelivered. Never the
 * token: it is signed anew at each attempt.
 */
export interface Delivery {
  tenantId: string;
  deliveryId: string;
  clientId: string;
  sessionId: string;
  userId: string;
  uri: string;
  /** The domain event that ended the session (`SessionRevoked`, `UserDisabled`, ...) and its id. */
  cause: string;
  causeEventId: string;
  status: 'pending' | 'dead';
  attempts: number;
  /** Milliseconds since the epoch (the server's clock). */
  firstAttemptAt?: number;
  nextAttemptAt: number;
  lastStatus?: number;
  lastError?: string;
  createdAt: string;
  updatedAt: string;
}

const DELIVERIES = 'backchannel_deliveries';
/** The follower's checkpoint alone (its documents are none): moved in the same commit as the deliveries it creates. */
const FOLLOWER = 'backchannel_follower';

export const deliveryKey = (tenantId: string, deliveryId: string) => `${tenantId}/${deliveryId}`;

/** The durable state of back-channel delivery: the deliveries not yet taken, and the follower's checkpoint. */
@Injectable()
export class DeliveryStore {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async prepare(): Promise<number> {
    await this.reads.prepareView(DELIVERIES, 1, [{ fields: ['status'] }, { fields: ['tenantId', 'status'] }]);
    await this.reads.prepareView(FOLLOWER, 1, []);
    return (await this.reads.viewState(FOLLOWER))?.position ?? 0;
  }

  /** Records new deliveries and the follower's position in one atomic step: a crash leaves both or neither. */
  async created(deliveries: readonly Delivery[], position: number): Promise<void> {
    const writes = deliveries.map((d) => ({ id: deliveryKey(d.tenantId, d.deliveryId), doc: { ...d }, position }));
    await this.reads.commitAll([
      { view: DELIVERIES, writes, checkpoint: 0 },
      { view: FOLLOWER, writes: [], checkpoint: position },
    ]);
  }

  /**
   * Saves a delivery as it now stands; `remove`: it was delivered, and its record is the log's
   * event. Saves made while a commit is under way go together in the next one.
   */
  save(d: Delivery, remove = false): Promise<void> {
    const write = { id: deliveryKey(d.tenantId, d.deliveryId), doc: remove ? null : { ...d }, position: 0 };
    let batch = this.batch;
    if (!batch) {
      let settle!: { resolve: () => void; reject: (e: Error) => void };
      const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
      batch = this.batch = { writes: new Map(), done, settle };
      void this.flush(batch);
    }
    batch.writes.set(write.id, write);
    return batch.done;
  }

  private batch?: { writes: Map<string, DocumentWrite>; done: Promise<void>; settle: { resolve: () => void; reject: (e: Error) => void } };
  private flushing: Promise<void> = Promise.resolve();

  /** Commits a batch once the commit before it is done, gathering the saves made meanwhile. */
  private async flush(batch: NonNullable<DeliveryStore['batch']>): Promise<void> {
    const previous = this.flushing;
    let release!: () => void;
    this.flushing = new Promise((r) => (release = r));
    await previous;
    if (this.batch === batch) this.batch = undefined;
    try {
      await this.reads.commit(DELIVERIES, [...batch.writes.values()], 0);
      batch.settle.resolve();
    } catch (error) {
      batch.settle.reject(error as Error);
    } finally {
      release();
    }
  }

  async pending(): Promise<Delivery[]> {
    return strip(await this.reads.find<Delivery>(DELIVERIES, { status: 'pending' }));
  }

  async deadLetters(tenantId: string, limit: number, afterId?: string): Promise<Delivery[]> {
    const prefix = deliveryKey(tenantId, '');
    const docs = await this.reads.find<Delivery>(DELIVERIES, { tenantId, status: 'dead' }, { idPrefix: prefix, ...(afterId !== undefined ? { afterId: prefix + afterId } : {}), sortBy: '_id', limit });
    return strip(docs);
  }

  async get(tenantId: string, deliveryId: string): Promise<Delivery | undefined> {
    const doc = await this.reads.get<Delivery>(DELIVERIES, deliveryKey(tenantId, deliveryId));
    return doc ? strip([doc])[0] : undefined;
  }
}

function strip(docs: Array<Delivery & { _id: string; _position: number }>): Delivery[] {
  return docs.map(({ _id, _position, ...d }) => d as Delivery);
}
