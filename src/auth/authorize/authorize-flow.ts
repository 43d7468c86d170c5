import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { ClientView } from '../../../projections/clients.projection.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import { redirectUriMatches, withResponseParams } from '../../domain/client/redirect-uri.js';
import type { SessionCommand, SessionState } from '../../domain/session/session.decider.js';
import { CODE_TTL_SECONDS } from '../../domain/session/session.events.js';
import { streams } from '../../domain/shared/stream-names.js';
import { hasConsent, userDecider } from '../../domain/user/user.decider.js';
import { randomToken } from '../../infrastructure/crypto/hashing.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { formPostPage } from '../../shared/html.js';
import {
  ConsentRequired,
  InvalidRequest,
  InvalidScope,
  LoginRequired,
  type OAuthError,
  RedirectableError,
  RegistrationNotSupported,
  RequestNotSupported,
  RequestUriNotSupported,
  storeError,
  UnauthorizedClient,
  UnsupportedResponseType,
  UserFacingError,
} from '../oauth-errors.js';
import { RoleScopes } from '../roles/role-scopes.js';
import { restrictedForUsers } from '../scopes.js';
import { MAX_STATE_LENGTH, type ParamsWithRepeats, repeatedParameter, scopeList } from '../params.js';
import { BrowserSessions } from '../sessions/browser-session.js';
import { mintArtefact, SessionCommands } from '../sessions/session-commands.js';
import { TokenIssuer } from '../tokens/token-issuer.js';
import { type FlowResult, originSource } from './flow-result.js';
import { type AuthorizationRequest, interactionCookie, Interactions } from './interaction.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';

type IssueCode = Extract<SessionCommand, { kind: 'IssueCode' }>;

/** RFC 7636 §4.2: a challenge is 43 to 128 unreserved characters. */
const CODE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
/** RFC 7636 §4.2: an S256 challenge is BASE64URL(SHA256(verifier)), 43 characters; any other could never match. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PROMPTS = new Set(['none', 'login', 'consent']);
/** The parameters that decide where an answer goes: when one is repeated, the answer is a page. */
const ANSWER_ROUTE = new Set(['client_id', 'redirect_uri', 'response_mode']);
/**
 * The longest free-form values accepted: the request travels sealed in the login and consent
 * links, which must stay well inside what a browser and this server take in a request line.
 */
const MAX_LENGTH = { state: MAX_STATE_LENGTH, nonce: 512, login_hint: 512, ui_locales: 256 } as const;

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
    @Inject(TokenIssuer) private readonly tokens: TokenIssuer,
    @Inject(RoleScopes) private readonly roleScopes: RoleScopes,
  ) {}

  async start(tenantId: string, { params, repeated }: ParamsWithRepeats, cookieHeader: string | undefined, origin: RequestOrigin): Promise<FlowResult> {
    const tenant = await this.directory.requireTenant(tenantId);
    // RFC 6749 §4.1.2.1: the error goes back to the client, unless the repeated parameter is
    // one that says where the answer goes.
    const unsure = repeated.find((name) => ANSWER_ROUTE.has(name));
    if (unsure) throw new UserFacingError(repeatedParameter(unsure));
    const clientId = params.client_id;
    const client = clientId ? await this.directory.client(tenantId, clientId) : null;
    if (!client) throw new UserFacingError(new InvalidRequest(clientId ? 'unknown client_id' : 'client_id is required'));
    // RFC 6749 §3.1.2.3 lets a client with one registered redirect URI leave it out; OpenID
    // Connect Core §3.1.2.1 does not, for a request whose scope names openid.
    if (params.redirect_uri === undefined && scopeList(params.scope)?.includes('openid')) {
      throw new UserFacingError(new InvalidRequest('redirect_uri is required in an OpenID Connect request'));
    }
    const redirectUri = params.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    if (!redirectUri) throw new UserFacingError(new InvalidRequest('redirect_uri is required'));
    if (!redirectUriMatches(client.redirectUris, redirectUri)) throw new UserFacingError(new InvalidRequest('redirect_uri is not registered for this client'));
    const responseMode = params.response_mode ?? 'query';
    // A `state` too long to take is not sent back either (the answer would be a URL that long).
    const state = (params.state?.length ?? 0) <= MAX_STATE_LENGTH && !repeated.includes('state') ? params.state : undefined;
    const back = { redirectUri, responseMode: responseMode === 'form_post' ? ('form_post' as const) : ('query' as const), state, iss: this.directory.issuer(tenantId) };
    const fail = (e: OAuthError): never => {
      throw new RedirectableError(e, back);
    };
    if (responseMode !== 'query' && responseMode !== 'form_post') fail(new InvalidRequest('response_mode must be query or form_post'));
    if (repeated.length) fail(repeatedParameter(repeated[0]));
    for (const [name, max] of Object.entries(MAX_LENGTH)) if ((params[name]?.length ?? 0) > max) fail(new InvalidRequest(`${name} must be at most ${max} characters`));
    if (params.request !== undefined) fail(new RequestNotSupported('request objects are not supported'));
    if (params.request_uri !== undefined) fail(new RequestUriNotSupported('request_uri is not supported'));
    // OpenID Connect Core §7.2.1: self-issued clients' registration metadata.
    if (params.registration !== undefined) fail(new RegistrationNotSupported('the registration parameter is not supported'));
    if (params.response_type === undefined) fail(new InvalidRequest('response_type is required'));
    if (params.response_type !== 'code') fail(new UnsupportedResponseType('only response_type=code is supported'));
    if (!client.grantTypes.includes('authorization_code')) fail(new UnauthorizedClient('the client may not use the authorization code grant'));
    const challenge = params.code_challenge;
    if (!challenge) fail(new InvalidRequest('code_challenge is required'));
    const method = params.code_challenge_method ?? 'plain';
    if (method !== 'S256' && method !== 'plain') fail(new InvalidRequest('code_challenge_method must be S256 or plain'));
    if (method === 'plain' && tenant.securityProfile === 'strict') fail(new InvalidRequest('this tenant requires code_challenge_method=S256'));
    if (!CODE_CHALLENGE.test(challenge!)) fail(new InvalidRequest('code_challenge must be 43 to 128 unreserved characters'));
    if (method === 'S256' && !S256_CHALLENGE.test(challenge!)) fail(new InvalidRequest('an S256 code_challenge is the 43-character base64url SHA-256 of the verifier'));
    // OpenID Connect Core §3.1.2.1 (scope values not understood are ignored) and RFC 6749 §3.3
    // (the server may grant less): values the client is not registered for are left out, and
    // the token response names what was granted. Nothing left is an error.
    // `offline_access` asks for a refresh token (OpenID Connect Core §11): a client that may
    // not use the refresh_token grant is not granted it, so that the scope granted says so.
    const requested = scopeList(params.scope);
    // The restricted scopes are granted only when asked for, and only to a user whose roles
    // hold them: that is decided in `resume`, once the user is known.
    const grantable = client.grantTypes.includes('refresh_token') ? client.scope : client.scope.filter((s) => s !== 'offline_access');
    const scope = requested ? requested.filter((s) => grantable.includes(s)) : grantable.filter((s) => s !== 'offline_access' && !restrictedForUsers(s));
    if (scope.length === 0) fail(new InvalidScope(requested ? 'none of the requested scopes is allowed for this client' : 'the client is registered for no scope'));
    const prompt = scopeList(params.prompt) ?? [];
    if (prompt.some((p) => !PROMPTS.has(p)) || (prompt.includes('none') && prompt.length > 1)) fail(new InvalidRequest('prompt must be none, or any of login and consent'));
    let maxAge: number | undefined;
    if (params.max_age !== undefined) {
      maxAge = /^\d{1,10}$/.test(params.max_age) ? Number(params.max_age) : fail(new InvalidRequest('max_age must be a non-negative integer'));
    }
    // OpenID Connect Core §3.1.2.1: an ID token of ours (expired or not) naming the user the client expects.
    let hintSubject: string | undefined;
    if (params.id_token_hint !== undefined) {
      const sub = (await this.tokens.verify(tenantId, params.id_token_hint, 'JWT'))?.payload.sub;
      hintSubject = typeof sub === 'string' ? sub : fail(new InvalidRequest('id_token_hint is not an ID token issued here'));
    }
    const request: AuthorizationRequest = {
      tenantId,
      clientId: client.clientId,
      redirectUri,
      responseMode: back.responseMode,
      state: params.state,
      nonce: params.nonce,
      scope,
      codeChallenge: challenge!,
      codeChallengeMethod: method as 'S256' | 'plain',
      prompt,
      maxAge,
      loginHint: params.login_hint,
      startedAt: this.clock.seconds(),
      browserNonce: randomToken(16),
      // Each request has a cookie of its own, so sign-ins started in two tabs both stay valid.
      interactionId: randomToken(6),
    };
    // Optional fields by assignment (see domain/shared/merged.ts).
    if (params.redirect_uri === undefined) request.redirectUriOmitted = true;
    if (hintSubject !== undefined) request.hintSubject = hintSubject;
    if (params.ui_locales) request.uiLocales = params.ui_locales;
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
    const reauthenticate = request.prompt.includes('login') || request.maxAge === 0 || (session !== undefined && request.maxAge !== undefined && now - session.authTime > request.maxAge);
    // Only the user an id_token_hint names may answer: another user's session counts as none,
    // and another user who has just signed in is refused (OpenID Connect Core §3.1.2.1).
    const otherUser = session !== undefined && request.hintSubject !== undefined && session.userId !== request.hintSubject;
    if (otherUser && freshLogin) throw this.toClient(request, new LoginRequired('the user who signed in is not the one id_token_hint names'));
    const needsLogin = !session || otherUser || (reauthenticate && !freshLogin);
    if (needsLogin) {
      if (request.prompt.includes('none')) throw this.toClient(request, new LoginRequired('the user is not signed in'));
      return this.interaction(`${tenantPath}/login`, request);
    }
    const user = await this.aggregates.load(streams.user(tenant.tenantId, session.userId), userDecider);
    const scope = await this.roleScopes.forRoles(tenant.tenantId, user.state.roles ?? [], request.scope);
    if (scope.length === 0) throw this.toClient(request, new InvalidScope('none of the requested scopes is allowed for this user'));
    if (scope.length !== request.scope.length) request = { ...request, scope };
    const consentNeeded = (!client.firstParty && !hasConsent(user.state, client.clientId, request.scope)) || (request.prompt.includes('consent') && !request.consented);
    if (consentNeeded) {
      if (request.prompt.includes('none')) throw this.toClient(request, new ConsentRequired('the user has not allowed this client'));
      return this.interaction(`${tenantPath}/consent`, request);
    }
    const code = mintArtefact(session.sessionId);
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
    await this.sessions.run(
      tenant.tenantId,
      session.sessionId,
      { kind: 'IssueCode', code: issued },
      `user:${session.userId}`,
      { origin },
    ).catch((e: unknown) => {
      // RFC 6749 §4.1.2.1: a 503 cannot travel in a redirect; temporarily_unavailable (or server_error) can.
      const failure = storeError(e);
      throw failure ? this.toClient(request, failure) : e;
    });
    return this.answer(request, { code: code.value, state: request.state, iss: tenantPath });
  }

  /**
   * The error sent back to the client's redirect URI. A request that went through the login or
   * consent page (`spent`, or signed in or consented on the way) is spent: its cookie goes too.
   */
  toClient(request: AuthorizationRequest, error: OAuthError, spent = false): RedirectableError {
    const cookies = this.spentCookies(request, spent);
    return new RedirectableError(error, { redirectUri: request.redirectUri, responseMode: request.responseMode, state: request.state, iss: this.directory.issuer(request.tenantId), cookies });
  }

  private spentCookies(request: AuthorizationRequest, spent = false): string[] {
    return spent || request.authenticated || request.consented ? [this.browser.clear(request.tenantId, interactionCookie(request))] : [];
  }

  private interaction(page: string, request: AuthorizationRequest): FlowResult {
    const location = `${page}?interaction=${encodeURIComponent(this.interactions.seal(request))}`;
    return { kind: 'redirect', location, cookies: [this.browser.cookie(request.tenantId, interactionCookie(request), request.browserNonce, 600)] };
  }

  private answer(request: AuthorizationRequest, fields: Record<string, string | undefined>): FlowResult {
    const cookies = this.spentCookies(request);
    if (request.responseMode === 'form_post') return { kind: 'html', status: 200, body: formPostPage(request.redirectUri, fields), cookies, framable: true, formAction: originSource(request.redirectUri) };
    return { kind: 'redirect', location: withResponseParams(request.redirectUri, fields), cookies };
  }
}
