import { Controller, Header, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientTokensDecider } from '../../domain/client/client-tokens.decider.js';
import { REVOCATION_REFUSAL } from '../../domain/session/session.decider.js';
import { streams } from '../../domain/shared/stream-names.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Turns } from '../../shared/turns.js';
import { type ClientEndpoint, ClientRequests } from '../client-request/client-request.js';
import { InvalidGrant } from '../oauth-errors.js';
import { required } from '../params.js';
import { artefactHash, Refusals, SessionCommands, sessionOf } from '../sessions/session-commands.js';
import { TokenInspector } from '../tokens/token-inspector.js';

const REVOCATION_ENDPOINT: ClientEndpoint = { name: 'revoke', bodyOnly: [], allowPublic: true, browser: true };

/**
 * RFC 7009 revocation of the client's own tokens. Revoking a refresh token ends its grant
 * (the tokens issued with it); unknown or already invalid tokens get 200 all the same (§2.2),
 * and a live token of another client is refused with invalid_grant (§2.1; RFC 6749 §5.2 names
 * a grant "issued to another client" so).
 */
@Controller(':tenant')
export class RevokeController {
  /** Revocations of one access token (tenant and jti) take turns. */
  private readonly turns = new Turns();

  constructor(
    @Inject(ClientRequests) private readonly requests: ClientRequests,
    @Inject(TokenInspector) private readonly inspector: TokenInspector,
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(Refusals) private readonly refusals: Refusals,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** RFC 7009 §2.2: 200 with no body, and so without a Content-Type (strict clients refuse a `text/plain` one). */
  @Post('revoke')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  async revoke(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const { params, origin, client } = await this.requests.open(REVOCATION_ENDPOINT, tenantId, req, reply);
    const token = required(params, 'token');
    const actor = `client:${client.clientId}`;
    // A refresh token is decided on its session's stream, which knows every one it issued.
    const sessionId = sessionOf(token);
    if (sessionId) {
      const { events } = await this.sessions.run(tenantId, sessionId, { kind: 'RevokeRefreshToken', refreshHash: artefactHash(token), clientId: client.clientId, now: this.clock.seconds() }, actor, { origin });
      refusedIfAny(events);
      return;
    }
    const found = await this.inspector.inspect(tenantId, token, 'access_token', 'any');
    if (!found?.active) return;
    const t = found.token;
    const owner = t.clientId!;
    // A token ends once: revocations of one token, and refusals to revoke it, take turns, and
    // each looks again (the views have then seen the one before) whether it is still active.
    const endTurn = await this.turns.take(`${tenantId} ${t.jti}`);
    try {
      if (!(await this.inspector.inspect(tenantId, token, 'access_token', 'any'))?.active) return;
      // A user's token is revoked, or the revocation refused, by its session's decider.
      if (t.sessionId) return refusedIfAny((await this.sessions.run(tenantId, t.sessionId, { kind: 'RevokeAccessToken', jti: t.jti!, grantId: t.grantId, clientId: client.clientId, owner }, actor, { origin })).events);
      // A client's own token: revoked, or the revocation refused, on its owner's token stream.
      const now = this.clock.now();
      const refused = owner !== client.clientId;
      if (refused && !this.refusals.open(tenantId, client.clientId, now)) throw new InvalidGrant(REVOCATION_REFUSAL);
      const revoke = { kind: 'RevokeClientToken' as const, tenantId, jti: t.jti, clientId: client.clientId, owner };
      await this.aggregates.execute(streams.clientTokens(tenantId, owner), clientTokensDecider, revoke, { tenantId, actor, now, ...origin });
      if (refused) {
        this.refusals.spend(tenantId, client.clientId, now);
        throw new InvalidGrant(REVOCATION_REFUSAL);
      }
    } finally {
      endTurn();
    }
  }
}

/** RFC 7009 §2.1: a live token of another client is refused (recorded; one not recorded is refused by SessionCommands). */
function refusedIfAny(events: ReadonlyArray<{ type: string }>): void {
  if (events.some((e) => e.type === 'RevocationRefused')) throw new InvalidGrant(REVOCATION_REFUSAL);
}
