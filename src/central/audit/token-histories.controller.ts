import { Controller, Get, Inject, Param, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { grantOfTokenId } from '../../domain/session/session.events.js';
import { EVENT_STORE, type EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { ProjectionRunner } from '../../infrastructure/read-store/projection-runner.js';
import type { Scalar } from '../../infrastructure/read-store/read-store.port.js';
import { AdminGuard, RequireScope } from '../auth/admin.guard.js';
import { problems } from '../http/problem.js';
import { adminValidation } from '../http/validation.js';
import { historyQuery } from './audit-query.js';
import { type HistoryEvent, TokenHistories } from './history-event.js';
import { redacted } from './redaction.js';

/** An entry of a token history as the API shows it. */
function historyItem(d: HistoryEvent): Record<string, unknown> {
  return {
    position: d.position,
    event_id: d.eventId,
    type: d.type,
    occurred_at: d.occurredAt,
    actor: d.actor,
    correlation_id: d.correlationId,
    ...(d.sourceIp ? { source_ip: d.sourceIp } : {}),
    ...(d.userAgent ? { user_agent: d.userAgent } : {}),
    ...(d.sessionId ? { session_id: d.sessionId } : {}),
    ...(d.sub ? { sub: d.sub } : {}),
    ...(d.clientId ? { client_id: d.clientId } : {}),
    ...(d.grantId ? { grant_id: d.grantId } : {}),
    ...(d.jti ? { jti: d.jti } : {}),
    data: redacted(d.data),
  };
}

/**
 * The token histories: every event of a session, a subject, a client or an access token, in log
 * order, a page at a time (`after`: the position of the last entry of the previous page). Each
 * is one indexed read of the token_history view (two for a token) and one read of the log by
 * position. Something of which nothing is recorded in the tenant is 404; a page after the last
 * is empty.
 */
@Controller(':tenant/configuration/audit')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class TokenHistoriesController {
  constructor(
    @Inject(TokenHistories) private readonly histories: TokenHistories,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
  ) {}

  @Get('sessions/:sid')
  @RequireScope('central:audit')
  session(@Param('tenant') tenantId: string, @Param('sid') sid: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.history(tenantId, [{ sessionId: sid }], req, reply, `no session ${sid}`);
  }

  @Get('subjects/:sub')
  @RequireScope('central:audit')
  subject(@Param('tenant') tenantId: string, @Param('sub') sub: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.history(tenantId, [{ sub }], req, reply, `no subject ${sub}`);
  }

  @Get('clients/:clientId')
  @RequireScope('central:audit')
  client(@Param('tenant') tenantId: string, @Param('clientId') clientId: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.history(tenantId, [{ clientId }], req, reply, `no token history of client ${clientId}`);
  }

  /**
   * An access token's own events (issue, revocation, refused revocations) and the end of the
   * grant its `jti` names, if that ended it: by `jti`, and by `endsGrant` (see the view).
   */
  @Get('tokens/:jti')
  @RequireScope('central:audit')
  token(@Param('tenant') tenantId: string, @Param('jti') jti: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const grantId = grantOfTokenId(jti);
    return this.history(tenantId, [{ jti }, ...(grantId ? [{ endsGrant: grantId }] : [])], req, reply, `no token ${jti}`);
  }

  private async history(tenantId: string, filters: Array<Record<string, Scalar>>, req: FastifyRequest, reply: FastifyReply, unknown: string): Promise<unknown> {
    const { limit, after } = historyQuery(req.query);
    reply.header('cache-control', 'no-store');
    // Every event recorded before the request is in the answer.
    await this.projections.waitFor(['token_history'], await this.events.headPosition());
    const { events, firstFound } = await this.histories.find(tenantId, filters, { after, limit: limit + 1 });
    // The first filter is the thing's own: with nothing there, the thing is unknown.
    if (!after && !firstFound) throw problems.notFound(unknown);
    const items = events.slice(0, limit);
    return events.length > limit ? { items: items.map(historyItem), next: String(items[items.length - 1].position) } : { items: items.map(historyItem) };
  }
}
