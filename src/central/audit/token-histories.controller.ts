import { Controller, Get, Inject, Param, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { historyKey, type TokenHistoryEntry } from '../../../projections/token-history.projection.js';
import { grantOfTokenId } from '../../domain/session/session.events.js';
import { EVENT_STORE, type EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { ProjectionRunner } from '../../infrastructure/read-store/projection-runner.js';
import { READ_STORE, type ReadStore, type Scalar, type ViewDocument } from '../../infrastructure/read-store/read-store.port.js';
import { AdminGuard, RequireScope } from '../auth/admin.guard.js';
import { problems } from '../http/problem.js';
import { adminValidation } from '../http/validation.js';
import { historyQuery } from './audit-query.js';
import { redacted } from './redaction.js';

type Entry = ViewDocument<TokenHistoryEntry>;

/** An entry of the token_history view as the API shows it. */
function historyItem(d: Entry): Record<string, unknown> {
  return {
    position: d._position,
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
 * The token histories, from the token_history view: every event of a session, a subject, a
 * client or an access token, in log order, a page at a time (`after`: the position of the last
 * entry of the previous page). Each is one indexed read (two for a token). Something of which
 * nothing is recorded in the tenant is 404; a page after the last is empty.
 */
@Controller(':tenant/configuration/audit')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class TokenHistoriesController {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
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
    // `0` sorts after every entry of the position `after` (see historyKey) and before the next one.
    const range = after ? { afterId: `${historyKey(tenantId, after)}0` } : {};
    const reads = await Promise.all(filters.map((f) => this.reads.find<TokenHistoryEntry>('token_history', { tenantId, ...f }, { ...range, sortBy: '_position', limit: limit + 1 })));
    // The first read is the thing's own: with nothing there, the thing is unknown.
    if (!after && reads[0].length === 0) throw problems.notFound(unknown);
    const docs = reads.length === 1 ? reads[0] : reads.flat().sort((a, b) => a._position - b._position);
    const items = docs.slice(0, limit);
    return docs.length > limit ? { items: items.map(historyItem), next: String(items[items.length - 1]._position) } : { items: items.map(historyItem) };
  }
}
