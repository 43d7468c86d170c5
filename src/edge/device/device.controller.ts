import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type FlowResult, pageImages, sendFlowResult } from '../../auth/authorize/flow-result.js';
import { type AuthorizationRequest, interactionCookie, Interactions } from '../../auth/authorize/interaction.js';
import { DeviceAuthorizations, type FoundAuthorization } from '../../auth/device/device-authorizations.js';
import { formParams } from '../../auth/form-request.js';
import { InvalidRequest, UserFacingError } from '../../auth/oauth-errors.js';
import { readParams } from '../../auth/params.js';
import { BrowserSessions } from '../../auth/sessions/browser-session.js';
import { mintArtefact, SessionCommands } from '../../auth/sessions/session-commands.js';
import type { SessionState } from '../../domain/session/session.decider.js';
import { randomToken } from '../../infrastructure/crypto/hashing.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { fill, type PageContext, render } from '../../shared/html.js';
import { originOf } from '../../shared/request-origin.js';
import type { MessageKey } from '../pages/messages.en.js';
import { PageContexts } from '../pages/page-contexts.js';
import { UserCodeLimits } from './user-code-limits.js';

/** How long the page's form stays valid (the interaction cookie's life). */
const PAGE_SECONDS = 600;

/**
 * The user-code page of the device grant (RFC 8628 §3.3): the user types the code their device
 * shows (once), signs in through the sign-in page if this browser has no session, then allows or
 * denies the client the scopes it asked for. Each form travels with a sealed interaction bound
 * to this browser's cookie, as the sign-in page's does (CSRF); wrong codes are throttled.
 */
@Controller(':tenant')
export class DeviceController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Interactions) private readonly interactions: Interactions,
    @Inject(BrowserSessions) private readonly browser: BrowserSessions,
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(DeviceAuthorizations) private readonly authorizations: DeviceAuthorizations,
    @Inject(UserCodeLimits) private readonly limits: UserCodeLimits,
    @Inject(PageContexts) private readonly locales: PageContexts,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** The code form (prefilled from `verification_uri_complete`), or, back from the sign-in page, the confirmation. */
  @Get('device')
  async show(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = await this.directory.requireTenant(tenantId);
    const query = readParams(req.query);
    const ctx = await this.locales.context(tenantId, req);
    if (query.interaction !== undefined) {
      const request = this.pending(tenantId, query.interaction, req.headers.cookie);
      const session = await this.browser.current(tenant, req.headers.cookie);
      const found = request.device?.key !== undefined ? await this.authorizations.load(tenantId, request.device.key) : undefined;
      if (!session || !found || !answerable(found, this.clock.seconds())) return sendFlowResult(reply, this.message(ctx, 'device.title', 'device.lateText', 400));
      return sendFlowResult(reply, await this.confirm(ctx, request, found));
    }
    const request = this.newRequest(tenantId);
    sendFlowResult(reply, this.codeForm(ctx, request, query.user_code ?? '', 200, undefined, true));
  }

  @Post('device')
  async submit(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = await this.directory.requireTenant(tenantId);
    const params = formParams(req);
    const origin = originOf(req);
    const request = this.pending(tenantId, params.interaction, req.headers.cookie);
    const ctx = await this.locales.context(tenantId, req);
    const session = await this.browser.current(tenant, req.headers.cookie);
    if (params.decision !== undefined) return sendFlowResult(reply, await this.decide(ctx, request, session, params.decision, origin));
    const typed = params.user_code ?? '';
    const now = () => this.clock.now().getTime();
    const attempt = await this.limits.attempt(tenantId, origin.sourceIp, now, async () => {
      const found = await this.authorizations.byUserCode(tenantId, typed);
      return { found, ok: found !== undefined && answerable(found, this.clock.seconds()) };
    });
    if ('wait' in attempt) {
      const seconds = Math.max(1, Math.ceil(attempt.wait / 1000));
      reply.header('retry-after', String(seconds));
      return sendFlowResult(reply, this.codeForm(ctx, request, typed, 429, { key: 'device.limit', vars: { seconds } }));
    }
    if (!attempt.ok || !attempt.found) return sendFlowResult(reply, this.codeForm(ctx, request, typed, 400, { key: 'device.unknownCode' }));
    const { found } = attempt;
    const named: AuthorizationRequest = { ...request, clientId: found.state.requested!.clientId, scope: found.state.requested!.scope, device: { key: found.key } };
    // Not signed in: the sign-in page, which sends the browser back here (LoginController).
    if (!session) return sendFlowResult(reply, { kind: 'redirect', location: `${this.directory.issuer(tenantId)}/login?interaction=${encodeURIComponent(this.interactions.seal(named))}` });
    sendFlowResult(reply, await this.confirm(ctx, named, found));
  }

  /** The user's answer: on approval, a code in the user's session that only the device code redeems (its PKCE verifier). */
  private async decide(ctx: PageContext, request: AuthorizationRequest, session: SessionState | undefined, decision: string, origin: RequestOrigin): Promise<FlowResult> {
    if (decision !== 'allow' && decision !== 'deny') throw new UserFacingError(new InvalidRequest('decision must be allow or deny'));
    const key = request.device?.key;
    const found = key !== undefined ? await this.authorizations.load(request.tenantId, key) : undefined;
    if (!session || !found || !answerable(found, this.clock.seconds())) return this.message(ctx, 'device.title', 'device.lateText', 400);
    const requested = found.state.requested!;
    const now = this.clock.seconds();
    const base = { tenantId: request.tenantId, key: found.key, userId: session.userId, now };
    const cookies = [this.browser.clear(request.tenantId, interactionCookie(request))];
    if (decision === 'deny') {
      const answered = await this.authorizations.answer(request.tenantId, { kind: 'Deny', ...base }, origin);
      return { ...this.message(ctx, 'device.deniedTitle', answered ? 'device.deniedText' : 'device.lateText', answered ? 200 : 400), cookies };
    }
    const code = mintArtefact(session.sessionId);
    // The code lives as long as the device code; only the device code's holder can redeem it.
    await this.sessions.run(
      request.tenantId,
      session.sessionId,
      {
        kind: 'IssueCode',
        code: {
          grantId: randomUUID(),
          codeHash: code.hash,
          clientId: requested.clientId,
          redirectUri: '',
          redirectUriOmitted: true,
          codeChallenge: requested.codeChallenge,
          codeChallengeMethod: 'S256',
          scope: requested.scope,
          issuedAt: now,
          expiresAt: requested.expiresAt,
        },
      },
      `user:${session.userId}`,
      { origin },
    );
    const answered = await this.authorizations.answer(request.tenantId, { kind: 'Approve', ...base, sessionId: session.sessionId, codeHash: code.hash }, origin);
    return { ...this.message(ctx, 'device.allowedTitle', answered ? 'device.allowedText' : 'device.lateText', answered ? 200 : 400), cookies };
  }

  private async confirm(ctx: PageContext, request: AuthorizationRequest, found: FoundAuthorization): Promise<FlowResult> {
    const requested = found.state.requested!;
    const client = await this.directory.client(request.tenantId, requested.clientId);
    const data = { client: client?.clientName ?? requested.clientId, scopes: requested.scope, action: `${this.directory.issuer(request.tenantId)}/device`, interaction: this.interactions.seal(request) };
    return { kind: 'html', status: 200, body: render('device-confirm', 'device.confirmTitle', data, ctx), ...pageImages(ctx.logoUrl) };
  }

  private codeForm(ctx: PageContext, request: AuthorizationRequest, userCode: string, status: number, error?: { key: MessageKey; vars?: Record<string, number> }, setCookie = false): FlowResult {
    const data = { action: `${this.directory.issuer(request.tenantId)}/device`, interaction: this.interactions.seal(request), userCode, error: error && fill(ctx.messages[error.key], error.vars) };
    const cookies = setCookie ? [this.browser.cookie(request.tenantId, interactionCookie(request), request.browserNonce, PAGE_SECONDS)] : [];
    return { kind: 'html', status, body: render('device', 'device.title', data, ctx), cookies, ...pageImages(ctx.logoUrl) };
  }

  private message(ctx: PageContext, title: MessageKey, text: MessageKey, status: number): FlowResult & { kind: 'html' } {
    return { kind: 'html', status, body: render('message', title, { heading: ctx.messages[title], text: ctx.messages[text] }, ctx), ...pageImages(ctx.logoUrl) };
  }

  /** A fresh interaction for the code form: bound to this browser by its own cookie, as a sign-in's is. */
  private newRequest(tenantId: string): AuthorizationRequest {
    return {
      tenantId,
      clientId: '',
      redirectUri: '',
      responseMode: 'query',
      scope: [],
      codeChallenge: '',
      codeChallengeMethod: 'S256',
      prompt: [],
      startedAt: this.clock.seconds(),
      browserNonce: randomToken(16),
      interactionId: randomToken(6),
      device: {},
    };
  }

  /** The device interaction, only in the browser that started it. */
  private pending(tenantId: string, sealed: string | undefined, cookieHeader: string | undefined): AuthorizationRequest {
    const request = this.interactions.open(tenantId, sealed, cookieHeader);
    if (!request?.device) throw new UserFacingError(new InvalidRequest('this page has expired or belongs to another browser; open it again'));
    return request;
  }
}

/** Whether the user may still answer: requested, unanswered, unexpired. */
function answerable(found: FoundAuthorization, now: number): boolean {
  const s = found.state;
  return s.requested !== undefined && !s.approved && !s.denied && now < s.requested.expiresAt;
}
