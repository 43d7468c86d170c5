import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { SessionView } from '../../../projections/sessions.projection.js';
import { SessionCommands } from '../../auth/sessions/session-commands.js';
import { CONFIG, type Config } from '../../config.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { streams } from '../../domain/shared/stream-names.js';
import { userDecider } from '../../domain/user/user.decider.js';
import type { UserClaims } from '../../domain/user/user.events.js';
import { hashPassword } from '../../infrastructure/crypto/hashing.js';
import { PasswordQueue } from '../../infrastructure/crypto/password-queue.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';
import { passwordProblem } from '../passwords/password-policy.js';

/**
 * Views read after a user changes: the users view (the admin's next GET, sign-in, token checks)
 * and the sessions view, so that every session started before the change is found to be ended.
 */
const VIEWS = ['users', 'sessions'];

export class EditUser extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly userId: string,
    readonly change: { claims?: UserClaims; password?: string; disabled?: boolean },
    /** Who the password is for (the policy refuses their username or e-mail address). */
    readonly owner: { username: string; email?: string },
  ) {
    super();
  }
}

export class DeleteUser extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly userId: string,
  ) {
    super();
  }
}

/**
 * Ends every live session of a user, for good (a later re-enabling brings none back): each is
 * revoked on its own stream with the reason `admin`, which ends all its grants, offline ones too,
 * and those an earlier logout kept past the session's end.
 */
async function endSessionsOf(reads: ReadStore, sessions: SessionCommands, clock: Clock, by: CommandOrigin, userId: string): Promise<void> {
  const all = await reads.find<SessionView>('sessions', { tenantId: by.tenantId, userId });
  const live = all.filter((s) => !s.revoked || (s.keptGrants?.length ?? 0) > 0);
  for (const s of live) {
    await sessions.run(by.tenantId, s.sessionId, { kind: 'EndSession', reason: 'admin', now: clock.seconds() }, by.actor, by.origin ? { origin: by.origin } : {});
  }
}

@CommandHandler(EditUser)
export class EditUserHandler implements ICommandHandler<EditUser, void> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(PasswordQueue) private readonly passwords: PasswordQueue,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async execute(c: EditUser): Promise<void> {
    const { password, ...rest } = c.change;
    let passwordHash: string | undefined;
    if (password !== undefined) {
      const problem = passwordProblem(password, c.owner, this.config.signIn.passwordMinLength);
      if (problem) throw new DomainError('invalid_value', `password ${problem}`);
      // The admin's request waits for a hashing slot rather than being refused.
      passwordHash = await this.passwords.run(() => hashPassword(password), false);
    }
    await this.path.run(streams.user(c.by.tenantId, c.userId), userDecider, { kind: 'EditUser', ...rest, ...(passwordHash ? { passwordHash } : {}) }, c.by, VIEWS);
    // Also when the user was disabled already: a retry finishes what a crash left undone.
    if (c.change.disabled === true) await endSessionsOf(this.reads, this.sessions, this.clock, c.by, c.userId);
  }
}

@CommandHandler(DeleteUser)
export class DeleteUserHandler implements ICommandHandler<DeleteUser, void> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(c: DeleteUser): Promise<void> {
    await this.path.run(streams.user(c.by.tenantId, c.userId), userDecider, { kind: 'DeleteUser' }, c.by, VIEWS);
    await endSessionsOf(this.reads, this.sessions, this.clock, c.by, c.userId);
  }
}
