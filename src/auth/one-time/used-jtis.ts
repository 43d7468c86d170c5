import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { jtiStream, type JtiUsed, type OneTimeJwtKind } from '../../domain/replay/jti.events.js';
import type { DomainEvent } from '../../domain/shared/decider.js';
import { AggregateStore, type CommandContext } from '../../infrastructure/event-store/aggregate-store.js';
import { EVENT_STORE, type EventStore, type RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { expireLater } from '../../infrastructure/event-store/expired-streams.js';

/**
 * How long a jti's stream outlives the JWT's `expiresAt`, in seconds: at least the clock skew
 * any check allows past it (client assertions: 30 s on `exp`), so a replay is refused for as
 * long as the JWT itself could pass.
 */
export const JTI_KEPT_AFTER_EXPIRY_SECONDS = 60;

/** What a one-time JWT is used by: its issuer's scope (a client id, a key thumbprint) and its jti. */
export interface OneTimeUse {
  tenantId: string;
  kind: OneTimeJwtKind;
  /** Who may not use the jti twice: the client (assertions) or the key (DPoP proofs). */
  issuer: string;
  jti: string;
  expiresAt: number;
  clientId?: string;
  jkt?: string;
  actor: string;
  origin: RequestOrigin;
}

/**
 * Single use of a JWT's `jti`, shared by every server of the log: the first use creates the
 * jti's stream (JtiUsed, expected revision `no_stream`), a second finds it there. The log is
 * the store both embedded and EventStoreDB deployments already share, and the claim is one
 * append, as a token issue is.
 */
@Injectable()
export class UsedJtis {
  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  /**
   * True when the jti was unused (and is now used up); false on a replay. The jti's stream is
   * marked to expire JTI_KEPT_AFTER_EXPIRY_SECONDS after the JWT does (the store's sweep then
   * deletes it).
   */
  async use(u: OneTimeUse): Promise<boolean> {
    const { stream, events, ctx } = this.claimOf(u);
    const fresh = await this.aggregates.claim(stream, events, ctx);
    if (fresh) this.expire(u, stream);
    return fresh;
  }

  /**
   * Uses the jti up together with `record` (facts of the request it authenticates, appended at
   * any revision with the same metadata): one atomic append where the store offers it, else the
   * claim first. The record's position; undefined on a replay, when nothing was appended.
   */
  async useWith(u: OneTimeUse, record: { streamId: string; events: readonly DomainEvent[] }): Promise<number | undefined> {
    const { stream, events, ctx } = this.claimOf(u);
    const position = await this.aggregates.claimAndRecord({ streamId: stream, events }, record, ctx);
    if (position !== undefined) this.expire(u, stream);
    return position;
  }

  private claimOf(u: OneTimeUse): { stream: string; events: [Pick<JtiUsed, 'type' | 'data'>]; ctx: CommandContext } {
    const hash = createHash('sha256').update(`${u.issuer}\n${u.jti}`).digest('base64url');
    const data: JtiUsed['data'] = { tenantId: u.tenantId, kind: u.kind, expiresAt: u.expiresAt };
    if (u.clientId !== undefined) data.clientId = u.clientId;
    if (u.jkt !== undefined) data.jkt = u.jkt;
    return { stream: jtiStream(u.tenantId, u.kind, hash), events: [{ type: 'JtiUsed', data }], ctx: { tenantId: u.tenantId, actor: u.actor, now: this.clock.now(), ...u.origin } };
  }

  private expire(u: OneTimeUse, stream: string): void {
    expireLater(this.events, stream, (u.expiresAt + JTI_KEPT_AFTER_EXPIRY_SECONDS) * 1000);
  }
}
