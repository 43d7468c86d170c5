import { type BeforeApplicationShutdown, Inject, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { AuthCoreModule } from '../auth/auth.module.js';
import { AdminTokens } from '../central/auth/admin-tokens.js';
import { CommandPath } from '../central/command-path.js';
import { DeliveryModule } from '../delivery/delivery.module.js';
import { OncePerMinute } from '../shared/failure-budget.js';
import { PollController } from './poll.controller.js';
import { SsfPushKind } from './push-delivery.js';
import { SecurityEventTokens } from './security-event-tokens.js';
import { SetStore } from './set-store.js';
import { SetTargets } from './set-targets.js';
import { SsfAccess } from './ssf-access.js';
import { SsfFollower } from './ssf-follower.js';
import { SsfMetadataController } from './ssf-metadata.controller.js';
import { SsfStreams } from './ssf-streams.js';
import { StreamsController } from './streams.controller.js';

/**
 * The Shared Signals Framework 1.0 transmitter: metadata, stream management for receivers, and
 * Security Event Tokens (CAEP, RISC, SSF verification) from the log, delivered by poll (RFC 8936)
 * or pushed (RFC 8935) with the shared delivery machinery.
 */
@Module({
  imports: [AuthCoreModule, DeliveryModule],
  controllers: [SsfMetadataController, StreamsController, PollController],
  providers: [AdminTokens, CommandPath, SsfAccess, SsfStreams, SetStore, SetTargets, SecurityEventTokens, SsfFollower, SsfPushKind],
})
export class SsfModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('SharedSignals');

  constructor(@Inject(SsfFollower) private readonly follower: SsfFollower) {}

  async onApplicationBootstrap(): Promise<void> {
    const failures = new OncePerMinute((line) => this.logger.warn(line));
    this.follower.logger = (m) => failures.log(m);
    await this.follower.start();
  }

  /** Before the stores close (their modules shut down after this hook). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.follower.stop();
  }
}
