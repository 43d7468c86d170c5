import { type BeforeApplicationShutdown, Inject, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { AuthCoreModule } from '../auth/auth.module.js';
import { AdminTokens } from '../central/auth/admin-tokens.js';
import { CommandPath } from '../central/command-path.js';
import { CONFIG, type Config } from '../config.js';
import { DeliveryModule } from '../delivery/delivery.module.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { LEASES, type Leases } from '../infrastructure/read-store/lease.port.js';
import { OncePerMinute } from '../shared/failure-budget.js';
import { PollController } from './poll.controller.js';
import { SsfPushKind } from './push-delivery.js';
import { SecurityEventTokens } from './security-event-tokens.js';
import { SetStore } from './set-store.js';
import { SetTargets } from './set-targets.js';
import { SsfAccess } from './ssf-access.js';
import { SsfFollower } from './ssf-follower.js';
import { SsfFollowerLease } from './ssf-follower-lease.js';
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

  private lease?: SsfFollowerLease;

  constructor(
    @Inject(SsfFollower) private readonly follower: SsfFollower,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(LEASES) private readonly leases: Leases,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const failures = new OncePerMinute((line) => this.logger.warn(line));
    const log = (m: string) => failures.log(m);
    this.follower.logger = log;
    if (!this.config.mongodbUrl) return this.follower.start();
    // Several servers may share the store: one follows at a time (the delivery settings' lease TTL and poll interval).
    const { leaseTtlMs, pollMs } = this.config.delivery;
    this.follower.recheckMs = pollMs;
    const lease = (this.lease = new SsfFollowerLease(this.leases, this.clock, `${hostname()}/${process.pid}/${randomUUID()}`, this.follower, leaseTtlMs, log));
    this.follower.onLeaseLost = (fence) => void lease.lost(fence);
    // A follower that cannot start now is tried again at the lease's next turn.
    await lease.start().catch((e: Error) => log(`shared signals follower not started: ${e.message}`));
  }

  /** Before the stores close (their modules shut down after this hook). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.lease?.stop();
    await this.follower.close();
  }
}
