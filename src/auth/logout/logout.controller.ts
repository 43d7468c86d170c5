import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientView } from '../../../projections/clients.projection.js';
import { constantTimeEqual, randomToken } from '../../infrastructure/crypto/hashing.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { formPostPage, type PageContext, render } from '../../shared/html.js';
import { PageContexts } from '../../edge/pages/page-contexts.js';
import type { MessageKey } from '../../edge/pages/messages.en.js';
import { type FlowResult, pageImages, sendFlowResult } from '../authorize/flow-result.js';
import { formParams } from '../form-request.js';
import { InvalidRequest, UserFacingError } from '../oauth-errors.js';
import { MAX_STATE_LENGTH, type Params, readParams } from '../params.js';
import { BrowserSessions, SESSION_COOKIE } from '../sessions/browser-session.js';
import { SessionCommands } from '../sessions/session-commands.js';
import { TokenIssuer } from '../tokens/token-issuer.js';
import { originOf } from '../../shared/request-origin.js';
import { withResponseParams } from '../../domain/client/redirect-uri.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { type EndedSession, endedSessions, frontchannelFrames } from './frontchannel.js';

/** The relay page's nonce (see LogoutController), and how long its POST may take. */
const RELAY_COOKIE = 'logout-relay';
const RELAY_SECONDS = 300;

/**
 * OpenID Connect RP-Initiated Logout 1.0. Only a browser signed in as a user ends that user's
 * sessions: its own session (the one whose cookie it holds), and the session an
 * `id_token_hint` names when the hint's subject is the user signed in here (a session of
 * theirs in another browser). The user confirms first, on a page whose POST carries
 * `confirm`: a keyed hash of the browser's session cookie, which no other page can know;
 * unless the request provably comes from the hinted client: a POST whose `Origin` is one of
 * the client's registered redirect origins, with a hint of the browser's own session (ID
 * tokens are no secret, so a link with one proves nothing). A relying party's form POST from
 * its own site carries no SameSite cookie, so a POST without one is answered with a page of
 * this origin that posts the same fields again, which carries it. That POST is marked
 * `relayed` with a nonce the page also set as a cookie, so a page elsewhere cannot pass for
 * it; the first POST's `Origin` rides along, bound to that nonce by a keyed hash. Ending a
 * session revokes its tokens (`SessionRevoked`), except the offline grants of other clients
 * (see the session decider). The page also lets the user stay signed in (`decline`): nothing
 * ends, and the browser goes back to the relying party as it would have after signing out.
 */
@Controller(':tenant')
export class LogoutController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(TokenIssuer) private readonly tokens: TokenIssuer,
    @Inject(BrowserSessions) private readonly browser: BrowserSessions,
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(PageContexts) private readonly locales: PageContexts,
  ) {}

  @Get('logout')
  async get(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const params = readParams(req.query);
    const ctx = await this.locales.context(tenantId, req, params.ui_locales);
    sendFlowResult(reply, await this.logout(tenantId, params, this.browser.read(tenantId, req.headers.cookie), { posted: false }, originOf(req), ctx));
  }

  @Post('logout')
  async post(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { relayed, confirm, decline, relayed_from: relayedFrom, relayed_proof: relayedProof, ...params } = formParams(req);
    const cookies = this.browser.read(tenantId, req.headers.cookie);
    const origin = typeof req.headers.origin === 'string' && req.headers.origin !== 'null' ? req.headers.origin : undefined;
    // The relay's POST carries the nonce of its cookie (SameSite=Lax: no page elsewhere can
    // send that cookie with a POST, or read it); nothing else passes for it.
    const nonce = cookies[RELAY_COOKIE];
    const ctx = await this.locales.context(tenantId, req, params.ui_locales);
    const relayedHere = relayed !== undefined && nonce !== undefined && constantTimeEqual(relayed, nonce);
    if (!relayedHere && cookies[SESSION_COOKIE] === undefined) {
      await this.directory.requireTenant(tenantId);
      const next = randomToken();
      // A POST that claims to be relayed and is not (a page elsewhere, or a browser that keeps
      // no cookies) gets the page without its automatic submit, so that nothing loops.
      const from = origin ? { relayed_from: origin, relayed_proof: this.originProof(next, origin) } : {};
      const body = formPostPage(`${this.directory.issuer(tenantId)}/logout`, { ...params, relayed: next, ...from }, relayed === undefined, ctx);
      return sendFlowResult(reply, { kind: 'html', status: 200, body, cookies: [this.browser.cookie(tenantId, RELAY_COOKIE, next, RELAY_SECONDS)], ...pageImages(ctx.logoUrl) });
    }
    const relayedOrigin = relayedHere && relayedFrom !== undefined && relayedProof !== undefined && constantTimeEqual(relayedProof, this.originProof(nonce, relayedFrom)) ? relayedFrom : undefined;
    const result = await this.logout(tenantId, { ...params, confirm, decline }, cookies, { posted: true, from: relayedHere ? relayedOrigin : origin }, originOf(req), ctx);
    if (nonce !== undefined) result.cookies = [...(result.cookies ?? []), this.browser.clear(tenantId, RELAY_COOKIE)];
    sendFlowResult(reply, result);
  }

  /**
   * `via`: how the request came: a link (GET) or a POST, with the origin of the page that sent
   * it (through the relay, the first POST's) when known. Only the confirmation form, never a
   * link, may carry `confirm` or `decline`.
   */
  private async logout(tenantId: string, params: Params, cookies: Record<string, string>, via: { posted: boolean; from?: string }, origin: RequestOrigin, ctx: PageContext): Promise<FlowResult> {
    const { posted } = via;
    await this.directory.requireTenant(tenantId);
    const reject = (why: string): never => {
      throw new UserFacingError(new InvalidRequest(why));
    };
    let hintSession: string | undefined;
    let hintUser: string | undefined;
    let clientId = params.client_id;
    if (params.id_token_hint) {
      const hint = await this.tokens.verify(tenantId, params.id_token_hint, 'JWT');
      if (!hint) return reject('id_token_hint is not an ID token issued here');
      const aud = hint.payload.aud;
      if (clientId && aud !== clientId) reject('client_id does not match the id_token_hint');
      clientId = typeof aud === 'string' ? aud : undefined;
      hintSession = typeof hint.payload.sid === 'string' ? hint.payload.sid : undefined;
      hintUser = typeof hint.payload.sub === 'string' ? hint.payload.sub : undefined;
    }
    const client: ClientView | null = clientId ? await this.directory.client(tenantId, clientId) : null;
    if (clientId && !client) reject('unknown client_id');
    if ((params.state?.length ?? 0) > MAX_STATE_LENGTH) reject(`state must be at most ${MAX_STATE_LENGTH} characters`);
    const redirect = params.post_logout_redirect_uri;
    if (redirect && !client) reject('post_logout_redirect_uri needs id_token_hint or client_id');
    if (redirect && !client!.postLogoutRedirectUris.includes(redirect)) reject('post_logout_redirect_uri is not registered for this client');

    const back = (): FlowResult | undefined => (redirect ? { kind: 'redirect', location: withResponseParams(redirect, { state: params.state }) } : undefined);
    // Staying signed in ends nothing, so it needs no proof that the user chose it.
    if (posted && params.decline !== undefined) return back() ?? this.message(ctx, 'logout.stillTitle', 'logout.stillText');

    const held = await this.browser.heldBy(tenantId, cookies[SESSION_COOKIE]);
    const ended: EndedSession[] = [];
    const current = held?.current ? held.state : undefined;
    const token = held && this.keys.keyedHash('logout confirmation', held.cookieHash);
    const fromHintedClient = hintSession !== undefined && via.from !== undefined && client !== null && redirectOrigins(client).has(via.from);
    const confirmed = (posted && params.confirm !== undefined && constantTimeEqual(params.confirm, token ?? '')) || (current !== undefined && hintSession === current.sessionId && fromHintedClient);
    if (current && !confirmed) return this.confirmPage(tenantId, params, token!, ctx);
    if (current) {
      const actor = `user:${current.userId}`;
      // The relying party whose request this is (the hint's audience, or client_id), on record.
      const end = { kind: 'EndSession' as const, reason: 'logout' as const, now: this.clock.seconds(), ...(client ? { requestedBy: client.clientId } : {}) };
      ended.push(...endedSessions((await this.sessions.run(tenantId, current.sessionId, end, actor, { origin })).events));
      // The user's session in another browser, when the hint names one of theirs.
      if (hintSession !== undefined && hintSession !== current.sessionId && hintUser === current.userId) {
        const other = await this.sessions.load(tenantId, hintSession);
        if (other.started && !other.revoked && other.userId === current.userId) {
          ended.push(...endedSessions((await this.sessions.run(tenantId, hintSession, end, actor, { origin })).events));
        }
      }
    }
    // The cookie is cleared only where the request showed it: a request without it (a form
    // posted from another site, which SameSite=Lax keeps the cookie from) must not clear the
    // cookie of a session it did not end.
    const cleared = cookies[SESSION_COOKIE] === undefined ? [] : [this.browser.clear(tenantId, SESSION_COOKIE)];
    const toClient = back();
    // Front-Channel Logout 1.0 §3: the relying parties of the ended sessions are told in
    // iframes of the signed-out page, which then continues to the post_logout_redirect_uri.
    const { frames, frameSrc } = await frontchannelFrames(this.directory.issuer(tenantId), ended, (id) => this.directory.client(tenantId, id));
    if (frames.length > 0) {
      const next = toClient?.kind === 'redirect' ? toClient.location : undefined;
      const body = render('logout-done', 'logout.doneTitle', { frames, next }, ctx, next ? 'assets/logout-continue.js' : undefined);
      return { kind: 'html', status: 200, body, cookies: cleared, frameSrc, ...pageImages(ctx.logoUrl) };
    }
    if (toClient) return { ...toClient, cookies: cleared };
    return { ...this.message(ctx, 'logout.doneTitle', 'logout.doneText'), cookies: cleared };
  }

  /** Binds the origin a relayed POST came from to the relay's nonce, which only this browser holds. */
  private originProof(nonce: string, origin: string): string {
    return this.keys.keyedHash('logout relay origin', `${nonce}\n${origin}`);
  }

  /** The request's own parameters go back as hidden fields; the page's answers (`confirm`, `decline`) only as the page sets them. */
  private confirmPage(tenantId: string, params: Params, confirm: string, ctx: PageContext): FlowResult {
    const { confirm: _confirm, decline: _decline, relayed: _relayed, relayed_from: _from, relayed_proof: _proof, ...request } = params;
    const fields = Object.entries({ ...request, confirm }).filter((f): f is [string, string] => f[1] !== undefined);
    const data = { action: `${this.directory.issuer(tenantId)}/logout`, fields };
    return { kind: 'html', status: 200, body: render('logout-confirm', 'logout.title', data, ctx), ...pageImages(ctx.logoUrl) };
  }

  /** A page that only says how things stand (`heading` is also its title). */
  private message(ctx: PageContext, heading: MessageKey, text: MessageKey): FlowResult {
    const t = ctx.messages;
    return { kind: 'html', status: 200, body: render('message', heading, { heading: t[heading], text: t[text] }, ctx), ...pageImages(ctx.logoUrl) };
  }
}

/** The origins of the client's registered redirect and post-logout redirect URIs: the pages its requests may come from. */
function redirectOrigins(client: ClientView): Set<string> {
  const origins = new Set<string>();
  for (const uri of [...client.redirectUris, ...client.postLogoutRedirectUris]) {
    const origin = URL.canParse(uri) ? new URL(uri).origin : 'null';
    if (origin !== 'null') origins.add(origin);
  }
  return origins;
}
