import { Controller, Get, Inject, Logger, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthorizeFlow } from '../../auth/authorize/authorize-flow.js';
import { type FlowResult, pageImages, sendFlowResult } from '../../auth/authorize/flow-result.js';
import { type AuthorizationRequest, Interactions } from '../../auth/authorize/interaction.js';
import { formParams } from '../../auth/form-request.js';
import { InvalidRequest, UserFacingError } from '../../auth/oauth-errors.js';
import { readParams } from '../../auth/params.js';
import { BrowserSessions, SESSION_COOKIE } from '../../auth/sessions/browser-session.js';
import { mintArtefact, newSessionId, SessionCommands, sessionIdFor } from '../../auth/sessions/session-commands.js';
import { replacedJustNow, type SessionCommand } from '../../domain/session/session.decider.js';
import { streams } from '../../domain/shared/stream-names.js';
import { loginFailureDecider } from '../../domain/user/login-failure.decider.js';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../../infrastructure/crypto/hashing.js';
import { PasswordQueue, PasswordQueueFull } from '../../infrastructure/crypto/password-queue.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { FailureBudget } from '../../shared/failure-budget.js';
import { type PageContext, fill, render } from '../../shared/html.js';
import { PageContexts } from '../pages/page-contexts.js';
import { TenantForms } from '../../shared/tenant-forms.js';
import { checkField } from '../../domain/form/form-rules.js';
import type { FormField } from '../../domain/form/form.events.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { MessageKey } from '../pages/messages.en.js';
import { DeviceCookies } from './device-cookie.js';
import { type Refusal, SignInLimits } from './sign-in-limits.js';
import { originOf } from '../../shared/request-origin.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';

/** Failed sign-ins with unknown usernames recorded per tenant in each minute's window (per server); the next one recorded counts the others. */
const UNKNOWN_USERNAMES_RECORDED_PER_MINUTE = 60;

/** What a sign-in held up by each limit is told. */
const REFUSALS: Record<Refusal['limit'], MessageKey> = {
  username: 'signIn.limit.username',
  address: 'signIn.limit.address',
  tenant: 'signIn.limit.tenant',
};

/** A text of the sign-in page's catalogue, with the values it names. */
interface Notice {
  key: MessageKey;
  vars?: Record<string, string | number>;
}

/**
 * The tenant's sign-in page: a plain form (username, password) that works without
 * JavaScript. A failed attempt says only that the pair was wrong.
 */
@Controller(':tenant')
export class LoginController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(AuthorizeFlow) private readonly flow: AuthorizeFlow,
    @Inject(Interactions) private readonly interactions: Interactions,
    @Inject(BrowserSessions) private readonly browser: BrowserSessions,
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
    @Inject(SignInLimits) private readonly limits: SignInLimits,
    @Inject(DeviceCookies) private readonly devices: DeviceCookies,
    @Inject(PasswordQueue) private readonly passwords: PasswordQueue,
    @Inject(PageContexts) private readonly locales: PageContexts,
    @Inject(TenantForms) private readonly forms: TenantForms,
  ) {}

  /** Failed sign-ins with usernames nobody has, recorded per tenant. */
  private readonly unknownUsernames = new FailureBudget(UNKNOWN_USERNAMES_RECORDED_PER_MINUTE);
  private readonly logger = new Logger('Login');

  @Get('login')
  async show(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = await this.directory.requireTenant(tenantId);
    const sealed = readParams(req.query).interaction;
    const request = this.pending(tenantId, sealed, req.headers.cookie);
    const page = await this.page(tenant, req, request);
    sendFlowResult(reply, this.form(page, sealed!, request.loginHint ?? '', 200));
  }

  @Post('login')
  async submit(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const tenant = await this.directory.requireTenant(tenantId);
    const origin = originOf(req);
    const params = formParams(req);
    const request = this.pending(tenantId, params.interaction, req.headers.cookie);
    const username = params.username ?? '';
    const page = await this.page(tenant, req, request);
    // A browser that signed in as this username before is counted on its own, so guesses from
    // elsewhere do not hold it up, until it has failed as often itself (OWASP: device cookies).
    const millis = () => this.clock.now().getTime();
    const device = this.devices.recognise(tenantId, username, req.headers.cookie);
    let attempt;
    try {
      // Refused before any lookup when no hash could run or wait now (and again, should the
      // queue fill up while the limits are read).
      const busy = this.passwords.refusal();
      if (busy) throw busy;
      // A username the tenant's sign-in form rules out is answered as a wrong one, without a look-up.
      if (checkField(page.username, username)) {
        sendFlowResult(reply, this.form(page, params.interaction!, username, 400, { key: 'signIn.wrongCredentials' }));
        return;
      }
      attempt = await this.limits.attempt({ tenantId, username, device, address: origin.sourceIp }, millis, async () => {
        const user = username ? await this.directory.userByUsername(tenantId, username) : null;
        // The password is checked against some hash whether or not the user exists: the same time either way.
        const ok = await this.passwords.run(async () => verifyPassword(params.password ?? '', user?.passwordHash ?? (await DUMMY_PASSWORD_HASH)));
        return { user, ok: ok && user !== null };
      });
    } catch (e) {
      if (!(e instanceof PasswordQueueFull)) throw e;
      // Every hashing slot and queue place is taken: refused at once, not counted as a failure.
      reply.header('retry-after', String(e.retryAfterSeconds));
      sendFlowResult(reply, this.form(page, params.interaction!, username, 429, { key: 'signIn.busy', vars: { seconds: e.retryAfterSeconds } }));
      return;
    }
    if ('wait' in attempt) {
      // Refused without looking at the password; the failures that led here are counted.
      const seconds = Math.max(1, Math.ceil(attempt.wait / 1000));
      reply.header('retry-after', String(seconds));
      sendFlowResult(reply, this.form(page, params.interaction!, username, 429, { key: REFUSALS[attempt.limit], vars: { seconds } }));
      return;
    }
    const { user, ok } = attempt;
    if (!user || !ok) {
      // 400, not 401: a form is no HTTP authentication scheme, and a 401 must name one (RFC 9110 §15.5.2).
      sendFlowResult(reply, this.form(page, params.interaction!, username, 400, { key: 'signIn.wrongCredentials' }));
      // Recorded once answered, whoever tried: how long the answer took then says nothing about
      // whether the username exists (a made-up one is not always recorded).
      this.recordFailure(tenantId, request.clientId, user?.userId, username, origin).catch((e: unknown) => this.logger.error(`a failed sign-in was not recorded: ${String(e)}`));
      return;
    }
    if (user.disabled) {
      // Answered as a wrong password, so the form tells nothing of the account; not a failure to record.
      sendFlowResult(reply, this.form(page, params.interaction!, username, 400, { key: 'signIn.wrongCredentials' }));
      return;
    }
    const now = this.clock.seconds();
    const held = await this.browser.held(tenantId, req.headers.cookie);
    const actor = `user:${user.userId}`;
    const same = held !== undefined && held.state.userId === user.userId;
    // One user per browser: signing in as someone else ends the session this browser held (by a
    // cookie that opens it, or one a sign-in sent alongside just replaced), which its cookie no
    // longer reaches and whose tokens would otherwise live on unseen.
    if (held && !same && (held.current || replacedJustNow(held.state, held.cookieHash, now))) {
      await this.sessions.run(tenantId, held.state.sessionId, { kind: 'EndSession', reason: 'another_user_signed_in', now }, actor, { origin });
    }
    // Signing in again keeps the session under a new cookie: a copy of an old one does not gain the new sign-in.
    const sessionId = same ? held.state.sessionId : await this.newSession(tenantId, request, user.userId);
    const cookie = mintArtefact(sessionId);
    const command: SessionCommand = same
      ? { kind: 'Reauthenticate', userId: user.userId, presentedCookieHash: held.cookieHash, cookieHash: cookie.hash, now }
      : { kind: 'StartSession', tenantId, sessionId, userId: user.userId, cookieHash: cookie.hash, now };
    await this.sessions.run(tenantId, sessionId, command, actor, { origin });
    const cookies = [this.browser.cookie(tenantId, SESSION_COOKIE, cookie.value)];
    // Device grant (RFC 8628 §3.3): back to the user-code page, to allow or deny the device.
    if (request.device) {
      const location = `${this.directory.issuer(tenantId)}/device?interaction=${encodeURIComponent(this.interactions.seal({ ...request, authenticated: true }))}`;
      sendFlowResult(reply, { kind: 'redirect', location, cookies: [...cookies, this.devices.issue(tenantId, username)] });
      return;
    }
    const client = await this.directory.client(tenantId, request.clientId);
    if (!client) throw new UserFacingError(new InvalidRequest('the client no longer exists'));
    const result: FlowResult = await this.flow.resume(tenant, client, { ...request, authenticated: true }, await this.sessions.load(tenantId, sessionId), origin);
    sendFlowResult(reply, { ...result, cookies: [...cookies, this.devices.issue(tenantId, username), ...(result.cookies ?? [])] });
  }

  /**
   * The session a sign-in on `request` starts: the one the same form posted before started,
   * unless that one has ended since (signed out, or ended by another user's sign-in, and the
   * form posted again with the back button); then a new one.
   */
  private async newSession(tenantId: string, request: AuthorizationRequest, userId: string): Promise<string> {
    const sessionId = sessionIdFor(this.keys, tenantId, request.browserNonce, userId);
    return (await this.sessions.load(tenantId, sessionId)).revoked ? newSessionId() : sessionId;
  }

  /**
   * A failed sign-in, anonymous (nobody was authenticated), made on the sign-in page of the
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

  /** The pending request, only in the browser that started it. */
  private pending(tenantId: string, sealed: string | undefined, cookieHeader: string | undefined): AuthorizationRequest {
    const request = this.interactions.open(tenantId, sealed, cookieHeader);
    if (!request) {
      throw new UserFacingError(new InvalidRequest('this sign-in link has expired or belongs to another browser; start again from the application'));
    }
    return request;
  }

  /** What every rendering of the form needs: the language and logo, the username's rules, and whether to offer registration. */
  private async page(tenant: TenantView, req: FastifyRequest, request: AuthorizationRequest): Promise<SignInPage> {
    const [ctx, form] = await Promise.all([this.locales.context(tenant.tenantId, req, request.uiLocales), this.forms.form(tenant.tenantId, 'sign-in')]);
    const username = form.fields.find((f) => f.name === 'username') ?? { name: 'username', required: true };
    return { tenantId: tenant.tenantId, ctx, username, registration: tenant.registrationEnabled && !request.device };
  }

  private form(page: SignInPage, sealed: string, username: string, status: number, error?: Notice): FlowResult {
    const { ctx } = page;
    const data = {
      action: `${this.directory.issuer(page.tenantId)}/login`,
      interaction: sealed,
      username,
      rules: page.username,
      register: page.registration ? `register?interaction=${encodeURIComponent(sealed)}` : undefined,
      error: error && fill(ctx.messages[error.key], error.vars),
    };
    return { kind: 'html', status, body: render('sign-in', 'signIn.title', data, ctx), ...pageImages(ctx.logoUrl) };
  }
}

interface SignInPage {
  tenantId: string;
  ctx: PageContext;
  username: FormField;
  registration: boolean;
}
