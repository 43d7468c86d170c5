import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { streams } from '../../domain/shared/stream-names.js';
import { userDecider } from '../../domain/user/user.decider.js';
import type { UserClaims } from '../../domain/user/user.events.js';
import { CONFIG, type Config } from '../../config.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { hashPassword } from '../../infrastructure/crypto/hashing.js';
import { PasswordQueue } from '../../infrastructure/crypto/password-queue.js';
import { passwordProblem } from '../passwords/password-policy.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { ProjectionRunner } from '../../infrastructure/read-store/projection-runner.js';
import { type CommandResult, unappliedFields } from './create-tenant.command.js';

export class CreateUser extends Command<CommandResult & { userId: string }> {
  constructor(
    readonly tenantId: string,
    readonly username: string,
    /** The plain password; only its slow hash is stored. */
    readonly password: string,
    readonly claims: UserClaims,
    readonly actor: string,
    /** The HTTP request it comes from, recorded on its events (absent: the bootstrap file). */
    readonly origin?: RequestOrigin,
  ) {
    super();
  }
}

/**
 * Claims the username on its reservation stream first (rule 5), then creates the user. A
 * retry after a crash between the two steps finds the reservation and finishes the job.
 */
@CommandHandler(CreateUser)
export class CreateUserHandler implements ICommandHandler<CreateUser, CommandResult & { userId: string }> {
  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(PasswordQueue) private readonly passwords: PasswordQueue,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async execute(c: CreateUser): Promise<CommandResult & { userId: string }> {
    const problem = passwordProblem(c.password, { username: c.username, email: c.claims.email }, this.config.signIn.passwordMinLength);
    if (problem) throw new DomainError('invalid_value', `user ${c.username}: password ${problem}`);
    const ctx = { tenantId: c.tenantId, actor: c.actor, now: this.clock.now(), ...c.origin };
    const reservation = streams.usernameReservation(c.tenantId, c.username);
    const existing = (await this.aggregates.load(reservation, userDecider)).state.reservedFor;
    const userId = existing ?? randomUUID();
    await this.aggregates.execute(reservation, userDecider, { kind: 'ReserveUsername', tenantId: c.tenantId, username: c.username, userId }, ctx);
    const userStream = streams.user(c.tenantId, userId);
    // An existing user's password is not compared: that would cost a slow hash per user at every start.
    const user = (await this.aggregates.load(userStream, userDecider)).state.created;
    if (user) return { created: false, userId, unapplied: unappliedFields(c.claims, user.claims).map((k) => `claims.${k}`) };
    // The operator's own work: it waits for a hashing slot rather than being refused.
    const passwordHash = await this.passwords.run(() => hashPassword(c.password), false);
    const { position } = await this.aggregates.execute(
      userStream,
      userDecider,
      { kind: 'CreateUser', tenantId: c.tenantId, userId, username: c.username, passwordHash, claims: c.claims, now: ctx.now.toISOString() },
      ctx,
    );
    if (position) await this.projections.waitFor(['users'], position);
    return { created: position > 0, userId };
  }
}
