import { Inject, Injectable } from '@nestjs/common';
import type { LeaseFence } from '../infrastructure/read-store/lease.port.js';
import { type DocumentWrite, READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';
import { partitionOf } from './delivery-partitions.js';

/**
 * One message of one kind (`backchannel_logout`, `webhook`, ...) to deliver to one receiver.
 * Kept in the read store from the moment a follower read the event that made it until the
 * receiver took it; a dead letter stays until it is redelivered. Never the message itself when
 * it is a credential: the kind's renderer makes it anew at each attempt.
 */
export interface Delivery<D extends object = object> {
  tenantId: string;
  deliveryId: string;
  /** Which renderer makes its requests (`DeliveryKind.kind`). */
  kind: string;
  /** The registration it is delivered for (a client for logout tokens, a subscription for webhooks): what the admin API filters by. */
  receiverId: string;
  /** Where it is sent; its origin is the receiver whose queue and concurrency it shares. */
  uri: string;
  /** What the kind needs to render it. */
  data: D;
  /** The domain event that made it (`SessionRevoked`, `UserDisabled`, ...) and its id. */
  cause: string;
  causeEventId: string;
  /** `held`: its kind holds it (a paused receiver) until it releases it. */
  status: 'pending' | 'dead' | 'held';
  attempts: number;
  /** Milliseconds since the epoch (the server's clock). */
  firstAttemptAt?: number;
  nextAttemptAt: number;
  lastStatus?: number;
  lastError?: string;
  createdAt: string;
  updatedAt: string;
}

/** Every kind's deliveries (the view's name is from when logout tokens were the only kind). */
const DELIVERIES = 'backchannel_deliveries';

export const deliveryKey = (tenantId: string, deliveryId: string) => `${tenantId}/${deliveryId}`;

/** The durable state of delivery: the deliveries not yet taken, and each follower's checkpoint. */
@Injectable()
export class DeliveryStore {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async prepare(): Promise<void> {
    await this.reads.prepareView(DELIVERIES, 1, [{ fields: ['status'] }, { fields: ['tenantId', 'status'] }, { fields: ['tenantId', 'kind', 'receiverId', 'status'] }, { fields: ['status', 'partition'] }]);
  }

  /** A follower's checkpoint (a view of no documents, moved in the same commit as the deliveries it creates). */
  async checkpoint(follower: string): Promise<number> {
    await this.reads.prepareView(follower, 1, []);
    return (await this.reads.viewState(follower))?.position ?? 0;
  }

  /**
   * Records new deliveries and the follower's position in one atomic step: a crash leaves both
   * or neither. With `fence` (a follower shared among servers), the store refuses the write with
   * LeaseLostError once the follower's lease has passed to another server.
   */
  async created(deliveries: readonly Delivery[], follower: string, position: number, fence?: LeaseFence): Promise<void> {
    const writes = deliveries.map((d) => ({ id: deliveryKey(d.tenantId, d.deliveryId), doc: stored(d), position }));
    await this.reads.commitAll(
      [
        { view: DELIVERIES, writes, checkpoint: 0 },
        { view: follower, writes: [], checkpoint: position },
      ],
      fence ? { fence } : {},
    );
  }

  /**
   * Saves a delivery as it now stands; `remove`: it was delivered, and its record is the log's
   * event. Saves made while a commit is under way go together in the next one.
   */
  save(d: Delivery, remove = false): Promise<void> {
    const write = { id: deliveryKey(d.tenantId, d.deliveryId), doc: remove ? null : stored(d), position: 0 };
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

  /** A receiver's held deliveries. */
  async held(tenantId: string, kind: string, receiverId: string): Promise<Delivery[]> {
    return strip(await this.reads.find<Delivery>(DELIVERIES, { tenantId, kind, receiverId, status: 'held' }));
  }

  /** A tenant's dead letters, of one kind (and one receiver) when given. */
  async deadLetters(tenantId: string, limit: number, afterId?: string, filter: { kind?: string; receiverId?: string } = {}): Promise<Delivery[]> {
    const prefix = deliveryKey(tenantId, '');
    const docs = await this.reads.find<Delivery>(DELIVERIES, { tenantId, ...filter, status: 'dead' }, { idPrefix: prefix, ...(afterId !== undefined ? { afterId: prefix + afterId } : {}), sortBy: '_id', limit });
    return strip(docs);
  }

  /** The pending deliveries of one partition (the server holding its lease sends them). */
  async pendingIn(partition: number): Promise<Delivery[]> {
    return strip(await this.reads.find<Delivery>(DELIVERIES, { status: 'pending', partition }));
  }

  /** Records the partition of the pending deliveries stored before deliveries had one, so that `pendingIn` finds them. */
  async partitionOlder(): Promise<void> {
    const older = strip(await this.reads.find<Delivery>(DELIVERIES, { status: 'pending', partition: null }));
    if (older.length) await this.reads.commit(DELIVERIES, older.map((d) => ({ id: deliveryKey(d.tenantId, d.deliveryId), doc: stored(d), position: 0 })), 0);
  }

  async get(tenantId: string, deliveryId: string): Promise<Delivery | undefined> {
    const doc = await this.reads.get<Delivery>(DELIVERIES, deliveryKey(tenantId, deliveryId));
    return doc ? strip([doc])[0] : undefined;
  }
}

type Stored = Delivery & { _id: string; _position: number; partition?: number };

/** The stored form: with its partition (delivery-partitions.ts), which the servers sharing the deliveries query by. */
function stored(d: Delivery): Record<string, unknown> {
  return { ...d, partition: partitionOf(d.uri) };
}

/** Without the store's own fields; a record from before kinds existed is a logout token's, its fields at the top. */
function strip(docs: readonly Stored[]): Delivery[] {
  return docs.map(({ _id, _position, partition: _p, ...d }) => (d.kind === undefined ? upcastLogout(d) : d));
}

function upcastLogout(d: Omit<Stored, '_id' | '_position' | 'partition'>): Delivery {
  const { clientId, sessionId, userId, ...rest } = d as unknown as Delivery & { clientId: string; sessionId: string; userId: string };
  return { ...rest, kind: 'backchannel_logout', receiverId: clientId, data: { clientId, sessionId, userId } };
}
