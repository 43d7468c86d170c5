import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { ClientView } from '../../../projections/clients.projection.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import { withResponseParams } from '../../domain/client/redirect-uri.js';
import type { SessionCommand, SessionState } from '../../domain/session/session.decider.js';
import { CODE_TTL_SECONDS } from '../../domain/session/session.events.js';
import { streams } from '../../domain/shared/stream-names.js';
import { hasConsent, userDecider } from '../../domain/user/user.decider.js';
import { randomToken } from '../../infrastructure/crypto/hashing.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { formPostPage } from '../../shared/html.js';
import { ConsentRequired, InvalidScope, LoginRequired, type OAuthError, RedirectableError, storeError } from '../oauth-errors.js';
import { PushedRequests } from '../par/pushed-requests.js';
import { RequestObjects } from '../request-object/request-objects.js';
import { RoleScopes } from '../roles/role-scopes.js';
import type { Params, ParamsWithRepeats } from '../params.js';
import { BrowserSessions } from '../sessions/browser-session.js';
import { mintArtefact, SessionCommands } from '../sessions/session-commands.js';
import { TokenIssuer } from '../tokens/token-issuer.js';
import { CHECKS, type CheckedRequest, type CheckServices, runBrowserChecks, runChecks } from './checks/index.js';
import { type FlowResult, originSource } from './flow-result.js';
import { isJwtMode, Jarm, transportOf } from './jarm.js';
import { type AuthorizationRequest, interactionCookie, Interactions } from './interaction.js';
import { ACR_MFA, acrOf, mfaRequested } from '../../domain/challenge/acr.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';

type IssueCode = Extract<SessionCommand, { kind: 'IssueCode' }>;

/**
 * The authorization endpoint's decisions (RFC 6749 §4.1, OpenID Connect Core §3.1.2): check
 * the request, then send the browser to login or consent as needed, then issue a code on the
 * session's stream and return it to the client.
 */
@Injectable()
export class AuthorizeFlow {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(BrowserSessions) private readonly browser: BrowserSessions,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(Interactions) private readonly interactions: Interactions,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(TokenIssuer) tokens: TokenIssuer,
    @Inject(RoleScopes) private readonly roleScopes: RoleScopes,
    @Inject(PushedRequests) pushed: PushedRequests,
    @Inject(RequestObjects) requestObjects: RequestObjects,
    @Inject(Jarm) private readonly jarm: Jarm,
  ) {
    this.checkServices = { directory, tokens, pushed, requestObjects, jarm };
  }

  private readonly checkServices: CheckServices;

  async start(tenantId: string, { params, repeated }: ParamsWithRepeats, cookieHeader: string | undefined, origin: RequestOrigin): Promise<FlowResult> {
    const tenant = await this.directory.requireTenant(tenantId);
    // RFC 9126 §4: a request_uri stands for the whole request, pushed before.
    const checks = params.request_uri !== undefined ? CHECKS.authorizeByReference : CHECKS.authorize;
    const { request: checked, client } = await runBrowserChecks(checks, { tenantId, tenant, params, repeated, request: {}, origin }, this.checkServices);
    const request: AuthorizationRequest = {
      ...checked,
      startedAt: this.clock.seconds(),
      browserNonce: randomToken(16),
      // Each request has a cookie of its own, so sign-ins started in two tabs both stay valid.
      interactionId: randomToken(6),
    };
    return this.resume(tenant, client, request, await this.browser.current(tenant, cookieHeader), origin);
  }

  /** Continues a request with the browser's session, after login or consent or straight away; `origin` is the HTTP request's. */
  async resume(tenant: TenantView, client: ClientView, request: AuthorizationRequest, session: SessionState | undefined, origin: RequestOrigin): Promise<FlowResult> {
    const now = this.clock.seconds();
    const tenantPath = `${this.directory.issuer(tenant.tenantId)}`;
    // Times are in seconds: a sign-in in the same second as the request is only fresh if it happened in this interaction.
    const freshLogin = session !== undefined && request.authenticated === true && session.authTime >= request.startedAt;
    // OpenID Connect Core §3.1.2.1: max_age=0 is equivalent to prompt=login. (The tenant's own
    // limits leave no session here: see BrowserSessions.current.)
    const reauthenticate =
      request.prompt.includes('login') ||
      request.maxAge === 0 ||
      (session !== undefined && request.maxAge !== undefined && now - session.authTime > request.maxAge) ||
      // MFA: acr_values asking for a second factor that the session's sign-in did not prove.
      (session !== undefined && mfaRequested(request.acrValues) && acrOf(session.amr) !== ACR_MFA);
    // Only the user an id_token_hint names may answer: another user's session counts as none,
    // and another user who has just signed in is refused (OpenID Connect Core §3.1.2.1).
    const otherUser = session !== undefined && request.hintSubject !== undefined && session.userId !== request.hintSubject;
    if (otherUser && freshLogin) throw await this.toClient(request, new LoginRequired('the user who signed in is not the one id_token_hint names'));
    const needsLogin = !session || otherUser || (reauthenticate && !freshLogin);
    if (needsLogin) {
      if (request.prompt.includes('none')) throw await this.toClient(request, new LoginRequired('the user is not signed in'));
      return this.interaction(`${tenantPath}/login`, request);
    }
    const { scope, consented } = await this.grantable(tenant.tenantId, client, session.userId, request.scope);
    if (scope.length === 0) throw await this.toClient(request, new InvalidScope('none of the requested scopes is allowed for this user'));
    if (scope.length !== request.scope.length) request = { ...request, scope };
    const consentNeeded = !consented || (request.prompt.includes('consent') && !request.consented);
    if (consentNeeded) {
      if (request.prompt.includes('none')) throw await this.toClient(request, new ConsentRequired('the user has not allowed this client'));
      return this.interaction(`${tenantPath}/consent`, request);
    }
    const code = await this.issueCode(tenant.tenantId, client, request, session.sessionId, session.userId, origin).catch(async (e: unknown) => {
      // RFC 6749 §4.1.2.1: a 503 cannot travel in a redirect; temporarily_unavailable (or server_error) can.
      const failure = storeError(e);
      throw failure ? await this.toClient(request, failure) : e;
    });
    return this.answer(request, { code, state: request.state, iss: tenantPath });
  }

  /** Of `requested`, the scopes the user's roles allow, and whether the client may have them without asking the user (first party, or allowed before). */
  async grantable(tenantId: string, client: ClientView, userId: string, requested: string[]): Promise<{ scope: string[]; consented: boolean }> {
    const user = await this.aggregates.load(streams.user(tenantId, userId), userDecider);
    const scope = await this.roleScopes.forRoles(tenantId, user.state.roles ?? [], requested);
    return { scope, consented: client.firstParty || hasConsent(user.state, client.clientId, scope) };
  }

  /**
   * The checks of /native/authorize (CHECKS.native) on a request of `client`, authenticated
   * already: the same rules as /authorize's, from the same table.
   */
  async checkNative(tenant: TenantView, client: ClientView, params: Params, origin: RequestOrigin): Promise<CheckedRequest> {
    const { request } = await runChecks(CHECKS.native, { tenantId: tenant.tenantId, tenant, client, params, repeated: [], request: {}, origin }, this.checkServices);
    return request;
  }

  /** Issues a code for `request` on the session's stream (single use, decided there); returns its value. */
  async issueCode(tenantId: string, client: ClientView, request: CheckedRequest, sessionId: string, userId: string, origin: RequestOrigin): Promise<string> {
    const now = this.clock.seconds();
    const code = mintArtefact(sessionId);
    const issued: IssueCode['code'] = {
      grantId: randomUUID(),
      codeHash: code.hash,
      clientId: client.clientId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
      scope: request.scope,
      issuedAt: now,
      expiresAt: now + CODE_TTL_SECONDS,
    };
    if (request.redirectUriOmitted) issued.redirectUriOmitted = true;
    if (request.nonce !== undefined) issued.nonce = request.nonce;
    if (request.resource !== undefined) issued.resource = request.resource;
    if (request.dpopJkt !== undefined) issued.dpopJkt = request.dpopJkt;
    await this.sessions.run(tenantId, sessionId, { kind: 'IssueCode', code: issued }, `user:${userId}`, { origin });
    return code.value;
  }

  /**
   * The error sent back to the client's redirect URI. A request that went through the login or
   * consent page (`spent`, or signed in or consented on the way) is spent: its cookie goes too.
   */
  async toClient(request: AuthorizationRequest, error: OAuthError, spent = false): Promise<RedirectableError> {
    const cookies = this.spentCookies(request, spent);
    const redirect = { redirectUri: request.redirectUri, responseMode: transportOf(request.responseMode), state: request.state, iss: this.directory.issuer(request.tenantId), cookies };
    if (!isJwtMode(request.responseMode)) return new RedirectableError(error, redirect);
    // JARM §2.4: errors travel signed too.
    const response = await this.jarm.response(request.tenantId, request.clientId, { error: error.code, error_description: error.description, state: request.state });
    return new RedirectableError(error, { ...redirect, response });
  }

  private spentCookies(request: AuthorizationRequest, spent = false): string[] {
    return spent || request.authenticated || request.consented ? [this.browser.clear(request.tenantId, interactionCookie(request))] : [];
  }

  private interaction(page: string, request: AuthorizationRequest): FlowResult {
    const location = `${page}?interaction=${encodeURIComponent(this.interactions.seal(request))}`;
    return { kind: 'redirect', location, cookies: [this.browser.cookie(request.tenantId, interactionCookie(request), request.browserNonce, 600)] };
  }

  private async answer(request: AuthorizationRequest, response: Record<string, string | undefined>): Promise<FlowResult> {
    const cookies = this.spentCookies(request);
    // JARM §2.3: the parameters travel as one signed JWT, `response`.
    const fields = isJwtMode(request.responseMode) ? { response: await this.jarm.response(request.tenantId, request.clientId, response) } : response;
    if (transportOf(request.responseMode) === 'form_post') return { kind: 'html', status: 200, body: formPostPage(request.redirectUri, fields), cookies, framable: true, formAction: originSource(request.redirectUri) };
    return { kind: 'redirect', location: withResponseParams(request.redirectUri, fields), cookies };
  }
}
