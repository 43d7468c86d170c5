import type { DomainEvent } from '../../domain/shared/decider.js';
import type { OneTimeUse, UsedJtis } from '../one-time/used-jtis.js';

/**
 * A verified client assertion whose jti is not used up yet (RFC 7523 §3 item 7: a jti is
 * accepted once). The token endpoint uses it up in the same append as the token it issues, so
 * a request waits for one durable write, not two; any other request uses it up on its own
 * before it answers. A request that authenticated with it and failed uses it up too: a replay
 * is refused whatever the first request got.
 */
export class PendingAssertion {
  private spent = false;

  constructor(
    private readonly jtis: UsedJtis,
    private readonly use: OneTimeUse,
    /** Records the replay as the client's failed authentication and throws invalid_client. */
    private readonly replayed: () => Promise<never>,
  ) {}

  /** Whether the jti was used up (or found used) by this request. */
  get isSpent(): boolean {
    return this.spent;
  }

  /** Uses the jti up on its own; a replay is refused. */
  async spend(): Promise<void> {
    const fresh = await this.jtis.use(this.use);
    this.spent = true;
    if (!fresh) await this.replayed();
  }

  /**
   * Uses the jti up in one append with `record` (UsedJtis.useWith): the record's position. A
   * replay is refused and nothing of `record` is appended.
   */
  async spendWith(record: { streamId: string; events: readonly DomainEvent[] }): Promise<number> {
    const position = await this.jtis.useWith(this.use, record);
    this.spent = true;
    return position ?? this.replayed();
  }

  /**
   * After the request failed: uses the jti up unless that was done, keeping the request's own
   * error (a store that cannot take the claim now leaves it unused, as no token was issued).
   */
  async spendAfterFailure(): Promise<void> {
    if (this.spent) return;
    this.spent = true;
    await this.jtis.use(this.use).catch(() => undefined);
  }
}
