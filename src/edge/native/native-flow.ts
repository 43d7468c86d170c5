import { Inject, Injectable } from '@nestjs/common';
import type { ClientView } from '../../../projections/clients.projection.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import { AuthorizeFlow } from '../../auth/authorize/authorize-flow.js';
import { InvalidDpopProof, InvalidScope, InvalidSession, LoginRequired, RedirectToWeb } from '../../auth/oauth-errors.js';
import type { Params } from '../../auth/params.js';
import { mintArtefact, newSessionId, SessionCommands } from '../../auth/sessions/session-commands.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { PasswordSignIn } from '../login/password-sign-in.js';
import { type AuthSessionState, AuthSessions, MAX_WRONG_ANSWERS } from './auth-sessions.js';
import { NATIVE_SECOND_FACTOR, type NativeSecondFactor, type SecondFactorSubject } from './native-second-factor.js';

/** A step's answer: the status and JSON body; `retryAfter` in seconds; `afterAnswer` runs once it is sent. */
export interface NativeAnswer {
  status: number;
  body: Record<string, unknown>;
  retryAfter?: number;
  afterAnswer?: () => void;
}

/** A sign-in under way, between the steps: the state without its id (a new one per step). */
type Pending = Omit<AuthSessionState, 'id' | 'expiresAt'>;

/**
 * The steps of a sign-in at the authorization challenge endpoint (OAuth 2.0 for First-Party
 * Applications): the request passes the checks of /authorize; then the password (the sign-in
 * page's PasswordSignIn: the same limits and events); then what NativeSecondFactor still asks
 * for, one challenge at a time; then a code. Between steps the app holds an auth_session.
 */
@Injectable()
export class NativeFlow {
  constructor(
    @Inject(AuthorizeFlow) private readonly flow: AuthorizeFlow,
    @Inject(AuthSessions) private readonly authSessions: AuthSessions,
    @Inject(PasswordSignIn) private readonly signIn: PasswordSignIn,
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(NATIVE_SECOND_FACTOR) private readonly secondFactor: NativeSecondFactor,
  ) {}

  /** One request of `client` (authenticated), with the thumbprint of its DPoP proof's key if it sent one. */
  async authorize(tenant: TenantView, client: ClientView, params: Params, jkt: string | undefined, origin: RequestOrigin): Promise<NativeAnswer> {
    const pending = params.auth_session !== undefined ? await this.resume(tenant.tenantId, client, params.auth_session, jkt, origin) : await this.begin(tenant, client, params, jkt, origin);
    const step = pending.step;
    if (step.kind === 'password') return this.password(client, pending, params, origin);
    return this.answerChallenge(client, { ...pending, step }, params, origin);
  }

  private async begin(tenant: TenantView, client: ClientView, params: Params, jkt: string | undefined, origin: RequestOrigin): Promise<Pending> {
    const request = await this.flow.checkNative(tenant, client, params, origin);
    if (jkt !== undefined) {
      // RFC 9449 §10.1 (as at PAR): a dpop_jkt and a proof must name the same key.
      if (request.dpopJkt !== undefined && request.dpopJkt !== jkt) throw new InvalidDpopProof('dpop_jkt is not the key of the DPoP proof');
      // Draft §9.5.1: the code is bound to the key of the first request's proof.
      request.dpopJkt = jkt;
    }
    return { tenantId: tenant.tenantId, clientId: client.clientId, ...(jkt !== undefined ? { jkt } : {}), request, step: { kind: 'password' }, wrong: 0 };
  }

  /** The sign-in an auth_session carries, spent (draft §5.3.1: bound to its client, and §9.6.1 to its DPoP key). */
  private async resume(tenantId: string, client: ClientView, value: string, jkt: string | undefined, origin: RequestOrigin): Promise<Pending> {
    const s = this.authSessions.open(tenantId, value);
    if (!s) throw new InvalidSession('the auth_session is invalid or expired; start again');
    if (s.clientId !== client.clientId) throw new InvalidSession('the auth_session belongs to another client');
    // Draft §9.5.1, §9.6.1: every later request proves the same key.
    if (s.jkt !== undefined && jkt !== s.jkt) throw new InvalidDpopProof(jkt === undefined ? 'the auth_session is bound to a DPoP key: send a DPoP proof of it' : 'the DPoP proof is of another key than the auth_session is bound to');
    if (!(await this.authSessions.spend(s, origin))) throw new InvalidSession('the auth_session was used already; start again');
    const { id: _id, expiresAt: _expires, ...pending } = s;
    return pending;
  }

  private async password(client: ClientView, pending: Pending, params: Params, origin: RequestOrigin): Promise<NativeAnswer> {
    const { tenantId } = pending;
    const username = params.username ?? pending.request.loginHint;
    if (username === undefined || params.password === undefined) return this.insufficient(pending, { challenge_type: 'password' }, "the user's username and password are required");
    const outcome = await this.signIn.check({ tenantId, clientId: client.clientId, username, password: params.password, usernameRule: await this.signIn.usernameRule(tenantId), origin });
    switch (outcome.kind) {
      case 'busy':
        return { status: 429, retryAfter: outcome.retryAfterSeconds, body: { error: 'temporarily_unavailable', error_description: 'the server is busy; retry later' } };
      case 'limited':
        return { status: 429, retryAfter: outcome.retryAfterSeconds, body: { error: 'slow_down', error_description: 'too many failed sign-ins; retry later' } };
      case 'wrong':
        return { ...this.wrong(pending, 'the username or password is wrong'), afterAnswer: outcome.recordFailure };
      case 'signed-in':
        return this.proven({ ...pending, wrong: 0 }, client, outcome.user.userId, this.clock.seconds(), ['pwd'], origin);
      default: {
        const _never: never = outcome;
        return _never;
      }
    }
  }

  private async answerChallenge(client: ClientView, pending: Pending & { step: Extract<Pending['step'], { kind: 'second_factor' }> }, params: Params, origin: RequestOrigin): Promise<NativeAnswer> {
    const { userId, authTime, proven, challenge } = pending.step;
    if (params.otp === undefined) return this.insufficient(pending, challengeFields(challenge), 'a one-time code (otp) is required');
    const verdict = await this.secondFactor.verify(this.subject(pending, client, userId, proven, origin), challenge, params.otp);
    if (verdict.kind === 'limited') return { status: 429, retryAfter: verdict.retryAfterSeconds, body: { error: 'slow_down', error_description: 'too many failed sign-ins; retry later' } };
    if (verdict.kind === 'wrong') return this.wrong(pending, 'the one-time code is wrong');
    return this.proven(pending, client, userId, authTime, [...new Set([...proven, ...verdict.amr])], origin);
  }

  /** Who the second-factor binding is asked about, with what the request says of the factors wanted and the language. */
  private subject(pending: Pending, client: ClientView, userId: string, proven: string[], origin: RequestOrigin): SecondFactorSubject {
    const { acrValues, uiLocales } = pending.request;
    return { tenantId: pending.tenantId, clientId: client.clientId, userId, proven, origin, ...(acrValues ? { acrValues } : {}), ...(uiLocales !== undefined ? { uiLocales } : {}) };
  }

  /** After a factor: the next challenge, if the user must prove more; else the code. */
  private async proven(pending: Pending, client: ClientView, userId: string, authTime: number, proven: string[], origin: RequestOrigin): Promise<NativeAnswer> {
    const challenge = await this.secondFactor.next(this.subject(pending, client, userId, proven, origin));
    if (challenge) return this.insufficient({ ...pending, step: { kind: 'second_factor', userId, authTime, proven, challenge } }, challengeFields(challenge), 'the user must prove a second factor');
    return this.finish(pending, client, userId, proven, origin);
  }

  /** The user is fully authenticated: a session of its own (no browser holds it) and a code on it (draft §5.2.1). */
  private async finish(pending: Pending, client: ClientView, userId: string, amr: string[], origin: RequestOrigin): Promise<NativeAnswer> {
    const { tenantId, request } = pending;
    // OpenID Connect Core §3.1.2.1: only the user an id_token_hint names may answer.
    if (request.hintSubject !== undefined && request.hintSubject !== userId) throw new LoginRequired('the user who signed in is not the one id_token_hint names');
    const { scope, consented } = await this.flow.grantable(tenantId, client, userId, request.scope);
    if (scope.length === 0) throw new InvalidScope('none of the requested scopes is allowed for this user');
    // Consent is asked on a page the server shows, never in the app (draft §5.2.2.1.1).
    if (!consented || request.prompt.includes('consent')) throw new RedirectToWeb('the user must allow this client in the browser');
    const sessionId = newSessionId();
    // The session's cookie is never handed out: the session holds the app's grants only.
    const cookie = mintArtefact(sessionId);
    await this.sessions.run(tenantId, sessionId, { kind: 'StartSession', tenantId, sessionId, userId, cookieHash: cookie.hash, now: this.clock.seconds(), amr }, `user:${userId}`, { origin });
    const code = await this.flow.issueCode(tenantId, client, { ...request, scope }, sessionId, userId, origin);
    return { status: 200, body: { authorization_code: code } };
  }

  /** Draft §5.2.2.1: 403 with what the next request must carry, and the auth_session to carry it with. */
  private insufficient(pending: Pending, fields: Record<string, string>, description: string): NativeAnswer {
    return { status: 403, body: { error: 'insufficient_authorization', error_description: description, auth_session: this.authSessions.issue(pending), ...fields } };
  }

  /**
   * A wrong answer: 400 `invalid_grant` (the credentials are wrong, RFC 6749 §5.2), with an
   * auth_session to try the same step again, until MAX_WRONG_ANSWERS; then the sign-in ends.
   */
  private wrong(pending: Pending, description: string): NativeAnswer {
    const wrong = pending.wrong + 1;
    const body: Record<string, unknown> = { error: 'invalid_grant', error_description: description };
    if (wrong < MAX_WRONG_ANSWERS) body.auth_session = this.authSessions.issue({ ...pending, wrong });
    return { status: 400, body };
  }
}

/** The fields of an `insufficient_authorization` answer that say which code to send. */
function challengeFields(c: { method: string; hint?: string }): Record<string, string> {
  return { challenge_type: 'otp', otp_method: c.method, ...(c.hint !== undefined ? { hint: c.hint } : {}) };
}
