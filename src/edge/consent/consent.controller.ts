import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthorizeFlow } from '../../auth/authorize/authorize-flow.js';
import { pageImages, sendFlowResult } from '../../auth/authorize/flow-result.js';
import { Interactions } from '../../auth/authorize/interaction.js';
import { formParams } from '../../auth/form-request.js';
import { AccessDenied, InvalidRequest, UserFacingError } from '../../auth/oauth-errors.js';
import { readParams } from '../../auth/params.js';
import { BrowserSessions } from '../../auth/sessions/browser-session.js';
import { streams } from '../../domain/shared/stream-names.js';
import { userDecider } from '../../domain/user/user.decider.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { render } from '../../shared/html.js';
import { PageContexts } from '../pages/page-contexts.js';
import { originOf } from '../../shared/request-origin.js';

/** The consent page for third-party clients; an allowed set of scopes is remembered (`ConsentGranted`), a denial recorded (`ConsentDenied`). */
@Controller(':tenant')
export class ConsentController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(AuthorizeFlow) private readonly flow: AuthorizeFlow,
    @Inject(Interactions) private readonly interactions: Interactions,
    @Inject(BrowserSessions) private readonly browser: BrowserSessions,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(PageContexts) private readonly locales: PageContexts,
  ) {}

  @Get('consent')
  async show(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const sealed = readParams(req.query).interaction;
    const { client, request } = await this.pending(tenantId, sealed, req.headers.cookie);
    const data = { client: client.clientName ?? client.clientId, scopes: request.scope, action: `${this.directory.issuer(tenantId)}/consent`, interaction: sealed };
    const ctx = await this.locales.context(tenantId, req, request.uiLocales);
    sendFlowResult(reply, { kind: 'html', status: 200, body: render('consent', 'consent.title', data, ctx), ...pageImages(ctx.logoUrl) });
  }

  @Post('consent')
  async submit(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = formParams(req);
    const origin = originOf(req);
    const { tenant, client, request, session } = await this.pending(tenantId, params.interaction, req.headers.cookie);
    if (params.decision !== 'allow' && params.decision !== 'deny') throw await this.flow.toClient(request, new InvalidRequest('decision must be allow or deny'), true);
    const allowed = params.decision === 'allow';
    const answer = { clientId: client.clientId, scope: request.scope, sessionId: session.sessionId };
    await this.aggregates.execute(streams.user(tenantId, session.userId), userDecider, allowed ? { kind: 'GrantConsent', ...answer } : { kind: 'DenyConsent', ...answer }, {
      tenantId,
      actor: `user:${session.userId}`,
      now: this.clock.now(),
      ...origin,
    });
    if (!allowed) throw await this.flow.toClient(request, new AccessDenied('the user denied the request'), true);
    sendFlowResult(reply, await this.flow.resume(tenant, client, { ...request, consented: true }, session, origin));
  }

  /** The pending request; only for the signed-in browser that started it. */
  private async pending(tenantId: string, sealed: string | undefined, cookieHeader: string | undefined) {
    const tenant = await this.directory.requireTenant(tenantId);
    const request = this.interactions.open(tenantId, sealed, cookieHeader);
    const session = await this.browser.current(tenant, cookieHeader);
    const client = request && (await this.directory.client(tenantId, request.clientId));
    if (!request || !session || !client) {
      throw new UserFacingError(new InvalidRequest('this consent link has expired or belongs to another browser; start again from the application'));
    }
    return { tenant, client, request, session };
  }
}
