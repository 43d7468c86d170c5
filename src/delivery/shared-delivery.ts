import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { EventStore } from '../infrastructure/event-store/event-store.port.js';
import type { Clock } from '../infrastructure/nest/clock.js';
import type { Leases } from '../infrastructure/read-store/lease.port.js';
import type { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';
import type { DeliveryFollowerSpec } from './delivery-kind.js';
import { DELIVERY_PARTITIONS } from './delivery-partitions.js';
import type { DeliverySender } from './delivery-sender.js';
import { DeliveryShares, type Share } from './delivery-shares.js';
import type { DeliveryStore } from './delivery-store.js';
import { LogFollower } from './log-follower.js';

const partitionLease = (partition: number) => `delivery-partition.${partition}`;

export interface SharedDeliveryParts {
  events: EventStore;
  runner: ProjectionRunner;
  store: DeliveryStore;
  sender: DeliverySender;
  clock: Clock;
  leases: Leases;
  followers: readonly DeliveryFollowerSpec[];
  leaseTtlMs: number;
  pollMs: number;
  logger?: (message: string) => void;
  /** Unique to this server's run; a new one at each start. */
  owner?: string;
}

/**
 * Delivery when several servers share one store: each kind's follower runs on one server,
 * and each partition's deliveries are sent by one server (delivery-shares.ts). A follower
 * enqueues at once the deliveries of partitions its server holds; the others' holders read
 * their pending deliveries from the store every `pollMs`.
 */
export class SharedDelivery {
  readonly shares: DeliveryShares;
  private readonly owned = new Set<number>();
  private timer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private reading: Promise<void> = Promise.resolve();

  constructor(private readonly parts: SharedDeliveryParts) {
    // Sends a partition while its lease is surely this server's (delivery-shares.ts `holds`), not only while it is started.
    parts.sender.owns = (partition) => this.owned.has(partition) && this.shares.holds(partitionLease(partition));
    const list: Share[] = [...parts.followers.map((spec) => this.followerShare(spec)), ...Array.from({ length: DELIVERY_PARTITIONS }, (_, p) => this.partitionShare(p))];
    const owner = parts.owner ?? `${hostname()}/${process.pid}/${randomUUID()}`;
    this.shares = new DeliveryShares(parts.leases, parts.clock, owner, list, { ttlMs: parts.leaseTtlMs }, parts.logger);
  }

  /** Stored pending deliveries from before deliveries had a partition get theirs; then the shares are taken and the store read now and then. */
  async start(): Promise<void> {
    await this.parts.store.partitionOlder();
    this.shares.start();
    this.timer = setInterval(() => void this.poll(), this.parts.pollMs);
    this.timer.unref();
  }

  /** Stops this server's followers and sends, and lets their leases go (`release: false`: keeps them, as a server that dies does). */
  async stop(release = true): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
    await this.shares.stop(release);
  }

  /** The partitions this server sends now. */
  get partitions(): readonly number[] {
    return [...this.owned];
  }

  /** Reads the pending deliveries of the partitions held, for the sender to take those it has not got. */
  poll(): Promise<void> {
    this.polling ??= this.read([...this.owned]).finally(() => (this.polling = undefined));
    return this.polling;
  }

  /**
   * Reads of the store never overlap: after each, what settled before it began is forgotten
   * (`DeliverySender.adopt`), which is sound only if no read begun earlier is still under way.
   */
  private read(partitions: readonly number[]): Promise<void> {
    const read = this.reading.then(async () => {
      const mark = this.parts.sender.mark;
      try {
        for (const p of partitions) if (this.owned.has(p)) this.parts.sender.adopt(await this.parts.store.pendingIn(p), mark);
        this.parts.sender.forgetSettled(mark);
      } catch (error) {
        this.parts.logger?.(`delivery: pending deliveries not read: ${(error as Error).message}`);
      }
    });
    this.reading = read;
    return read;
  }

  private partitionShare(partition: number): Share {
    return {
      lease: partitionLease(partition),
      start: async () => {
        this.owned.add(partition);
        await this.read([partition]);
      },
      stop: async () => {
        this.owned.delete(partition);
        await this.parts.sender.drop(partition);
      },
    };
  }

  private followerShare(spec: DeliveryFollowerSpec): Share {
    let follower: LogFollower | undefined;
    const { events, runner, store, sender, clock, logger } = this.parts;
    return {
      lease: `delivery-follower.${spec.checkpoint}`,
      // The follower's writes are made under the lease's fence: once another server has taken it over, the store refuses them.
      start: async (grant) => {
        follower = new LogFollower(spec, events, runner, store, sender, clock, logger, { lease: grant.name, fence: grant.fence });
        await follower.start();
      },
      stop: async () => {
        await follower?.stop();
        follower = undefined;
      },
    };
  }
}
