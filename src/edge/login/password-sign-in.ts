import { Inject, Injectable, Logger } from '@nestjs/common';
import type { UserView } from '../../../projections/users.projection.js';
import { checkField } from '../../domain/form/form-rules.js';
import type { FormField } from '../../domain/form/form.events.js';
import { streams } from '../../domain/shared/stream-names.js';
import { loginFailureDecider } from '../../domain/user/login-failure.decider.js';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../../infrastructure/crypto/hashing.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { PasswordQueue, PasswordQueueFull } from '../../infrastructure/crypto/password-queue.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { FailureBudget } from '../../shared/failure-budget.js';
import { TenantForms } from '../../shared/tenant-forms.js';
import { type Refusal, SignInLimits } from './sign-in-limits.js';

/** Failed sign-ins with unknown usernames recorded per tenant in each minute's window (per server); the next one recorded counts the others. */
const UNKNOWN_USERNAMES_RECORDED_PER_MINUTE = 60;

/** A username and password typed at one of the tenant's sign-in entry points (the page, the native API). */
export interface PasswordAttempt {
  tenantId: string;
  /** The client the user signs in to (named in the LoginFailed event). */
  clientId: string;
  username: string;
  password: string;
  /** The rule of the tenant's sign-in form for the username (see `usernameRule`). */
  usernameRule: FormField;
  /** The nonce of a device cookie recognised for this username, if any (see SignInLimits). */
  device?: string;
  origin: RequestOrigin;
}

/**
 * The decision on a password attempt:
 * - `signed-in`: the password is right and the account enabled;
 * - `wrong`: answered as a wrong username or password, whatever the reason (unknown user, wrong
 *   password, a username the form rules out, a disabled account). `recordFailure`, when present,
 *   must be called once the answer is sent (see `check`);
 * - `limited`: a sign-in limit holds the attempt up for `retryAfterSeconds`;
 * - `busy`: no password hash can run or wait now; not counted as a failure.
 */
export type PasswordOutcome =
  | { kind: 'signed-in'; user: UserView }
  | { kind: 'wrong'; recordFailure?: () => void }
  | { kind: 'limited'; limit: Refusal['limit']; retryAfterSeconds: number }
  | { kind: 'busy'; retryAfterSeconds: number };

/**
 * The password check of every sign-in entry point: the sign-in limits, the password verified in
 * the PasswordQueue against the user's hash or a dummy one, and the LoginFailed events (for
 * usernames nobody has, within a budget per tenant). Knows nothing of HTTP or pages.
 */
@Injectable()
export class PasswordSignIn {
  /** Failed sign-ins with usernames nobody has, recorded per tenant. */
  private readonly unknownUsernames = new FailureBudget(UNKNOWN_USERNAMES_RECORDED_PER_MINUTE);
  private readonly logger = new Logger('Login');

  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
    @Inject(SignInLimits) private readonly limits: SignInLimits,
    @Inject(PasswordQueue) private readonly passwords: PasswordQueue,
    @Inject(TenantForms) private readonly forms: TenantForms,
  ) {}

  /** The tenant's rule for the username field of its sign-in form. */
  async usernameRule(tenantId: string): Promise<FormField> {
    const form = await this.forms.form(tenantId, 'sign-in');
    return form.fields.find((f) => f.name === 'username') ?? { name: 'username', required: true };
  }

  /**
   * Decides `a`. A failed attempt is recorded only through the outcome's `recordFailure`, called
   * once answered, whoever tried: how long the answer took then says nothing about whether the
   * username exists (a made-up one is not always recorded).
   */
  async check(a: PasswordAttempt): Promise<PasswordOutcome> {
    const { tenantId, username } = a;
    const millis = () => this.clock.now().getTime();
    let attempt;
    try {
      // Refused before any lookup when no hash could run or wait now (and again, should the
      // queue fill up while the limits are read).
      const busy = this.passwords.refusal();
      if (busy) throw busy;
      // A username the tenant's sign-in form rules out is answered as a wrong one, without a look-up.
      if (checkField(a.usernameRule, username)) return { kind: 'wrong' };
      attempt = await this.limits.attempt({ tenantId, username, device: a.device, address: a.origin.sourceIp }, millis, async () => {
        const user = username ? await this.directory.userByUsername(tenantId, username) : null;
        // The password is checked against some hash whether or not the user exists: the same time either way.
        const ok = await this.passwords.run(async () => verifyPassword(a.password, user?.passwordHash ?? (await DUMMY_PASSWORD_HASH)));
        return { user, ok: ok && user !== null };
      });
    } catch (e) {
      if (!(e instanceof PasswordQueueFull)) throw e;
      // Every hashing slot and queue place is taken: refused at once, not counted as a failure.
      return { kind: 'busy', retryAfterSeconds: e.retryAfterSeconds };
    }
    if ('wait' in attempt) {
      // Refused without looking at the password; the failures that led here are counted.
      return { kind: 'limited', limit: attempt.limit, retryAfterSeconds: Math.max(1, Math.ceil(attempt.wait / 1000)) };
    }
    const { user, ok } = attempt;
    if (!user || !ok) {
      const recordFailure = () => {
        this.recordFailure(tenantId, a.clientId, user?.userId, username, a.origin).catch((e: unknown) => this.logger.error(`a failed sign-in was not recorded: ${String(e)}`));
      };
      return { kind: 'wrong', recordFailure };
    }
    // Answered as a wrong password, so nothing is told of the account; not a failure to record.
    if (user.disabled) return { kind: 'wrong' };
    return { kind: 'signed-in', user };
  }

  /**
   * A failed sign-in, anonymous (nobody was authenticated), made at an entry point of the
   * client: on the user's stream (each username's attempts are slowed by the sign-in limits), or, for
   * a username nobody has, on the tenant's within a budget, so that made-up usernames cannot
   * flood the log.
   */
  private async recordFailure(tenantId: string, clientId: string, userId: string | undefined, username: string, origin: RequestOrigin): Promise<void> {
    const ctx = { tenantId, actor: 'anonymous', now: this.clock.now(), ...origin };
    if (userId) {
      await this.aggregates.execute(streams.user(tenantId, userId), loginFailureDecider, { kind: 'RecordBadPassword', tenantId, clientId, userId }, ctx);
      return;
    }
    const budget = this.unknownUsernames.spend(tenantId, ctx.now.getTime());
    if (!budget.record) return;
    const usernameHash = this.keys.keyedHash('unknown username', `${tenantId}\n${username}`);
    await this.aggregates.execute(streams.loginFailures(tenantId), loginFailureDecider, { kind: 'RecordUnknownUsername', tenantId, clientId, usernameHash, unrecordedBefore: budget.unrecordedBefore }, ctx);
  }
}
