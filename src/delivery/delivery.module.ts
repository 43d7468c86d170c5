import { type BeforeApplicationShutdown, Inject, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { AdminGuard } from '../central/auth/admin.guard.js';
import { OncePerMinute } from '../shared/failure-budget.js';
import { BackchannelFollower } from './backchannel-follower.js';
import { BackchannelSender } from './backchannel-sender.js';
import { DeliveriesController } from './deliveries.controller.js';
import { DeliveryStore } from './delivery-store.js';
import { LogoutTokens } from './logout-token.js';

/**
 * Delivery of what happens here to the services that subscribe: back-channel logout tokens
 * (OpenID Connect Back-Channel Logout 1.0), at least once, driven by the event log.
 */
@Module({
  controllers: [DeliveriesController],
  providers: [DeliveryStore, LogoutTokens, BackchannelSender, BackchannelFollower, AdminGuard],
})
export class DeliveryModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Delivery');

  constructor(
    @Inject(BackchannelFollower) private readonly follower: BackchannelFollower,
    @Inject(BackchannelSender) private readonly sender: BackchannelSender,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // A store that keeps failing would log at every retry: one line a minute is enough.
    const failures = new OncePerMinute((line) => this.logger.warn(line));
    this.follower.logger = (m) => failures.log(m);
    this.sender.logger = (m) => failures.log(m);
    this.sender.start();
    await this.follower.start();
  }

  /** Before the stores close (their modules shut down after this hook). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.follower.stop();
    await this.sender.stop();
  }
}
