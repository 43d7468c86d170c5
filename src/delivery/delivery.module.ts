import { type BeforeApplicationShutdown, Inject, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { AdminGuard } from '../central/auth/admin.guard.js';
import { CONFIG, type Config } from '../config.js';
import { EVENT_STORE, type EventStore } from '../infrastructure/event-store/event-store.port.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { LEASES, type Leases } from '../infrastructure/read-store/lease.port.js';
import { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';
import { OncePerMinute } from '../shared/failure-budget.js';
import { BackchannelFollower } from './backchannel-follower.js';
import { BackchannelLogoutKind } from './backchannel-kind.js';
import { DeliveriesController } from './deliveries.controller.js';
import { DeliveryKinds } from './delivery-kind.js';
import { DeliverySender } from './delivery-sender.js';
import { DeliveryStore } from './delivery-store.js';
import { LogFollower } from './log-follower.js';
import { LogoutTokens } from './logout-token.js';
import { SharedDelivery } from './shared-delivery.js';

/**
 * Delivery of what happens here to the services that subscribe, at least once, driven by the
 * event log: one sender for every kind of message (back-channel logout tokens, ...), and one
 * log follower per kind that decides which events make deliveries. A kind registers itself
 * with `DeliveryKinds` when its module initialises. With the read models in MongoDB, several
 * servers may share the store: they share the deliveries too (shared-delivery.ts).
 */
@Module({
  controllers: [DeliveriesController],
  providers: [DeliveryKinds, DeliveryStore, DeliverySender, LogoutTokens, BackchannelFollower, BackchannelLogoutKind, AdminGuard],
  exports: [DeliveryKinds, DeliveryStore, DeliverySender],
})
export class DeliveryModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Delivery');
  private followers: LogFollower[] = [];
  private shared?: SharedDelivery;

  constructor(
    @Inject(DeliveryKinds) private readonly kinds: DeliveryKinds,
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(DeliverySender) private readonly sender: DeliverySender,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(ProjectionRunner) private readonly runner: ProjectionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(LEASES) private readonly leases: Leases,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // A store that keeps failing would log at every retry: one line a minute is enough.
    const failures = new OncePerMinute((line) => this.logger.warn(line));
    const log = (m: string) => failures.log(m);
    this.sender.logger = log;
    await this.store.prepare();
    if (this.config.mongodbUrl) return this.startShared(log);
    for (const d of await this.store.pending()) this.sender.enqueue(d);
    this.sender.start();
    this.followers = this.kinds.followers.map((spec) => new LogFollower(spec, this.events, this.runner, this.store, this.sender, this.clock, log));
    for (const f of this.followers) await f.start();
  }

  /** Before the stores close (their modules shut down after this hook). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.shared?.stop();
    await Promise.all(this.followers.map((f) => f.stop()));
    await this.sender.stop();
  }

  /** Several servers may be on this store: each takes its share of the followers and of the deliveries. */
  private async startShared(log: (m: string) => void): Promise<void> {
    const { leaseTtlMs, pollMs } = this.config.delivery;
    this.shared = new SharedDelivery({ events: this.events, runner: this.runner, store: this.store, sender: this.sender, clock: this.clock, leases: this.leases, followers: this.kinds.followers, leaseTtlMs, pollMs, logger: log });
    this.sender.start();
    await this.shared.start();
  }
}
