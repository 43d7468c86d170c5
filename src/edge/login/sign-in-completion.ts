import { Inject, Injectable } from '@nestjs/common';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { UserView } from '../../../projections/users.projection.js';
import { AuthorizeFlow } from '../../auth/authorize/authorize-flow.js';
import type { FlowResult } from '../../auth/authorize/flow-result.js';
import { type AuthorizationRequest, Interactions } from '../../auth/authorize/interaction.js';
import { InvalidRequest, UserFacingError } from '../../auth/oauth-errors.js';
import { BrowserSessions, SESSION_COOKIE } from '../../auth/sessions/browser-session.js';
import { mintArtefact, newSessionId, SessionCommands, sessionIdFor } from '../../auth/sessions/session-commands.js';
import { replacedJustNow, type SessionCommand } from '../../domain/session/session.decider.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { DeviceCookies } from './device-cookie.js';

/**
 * The end of a browser sign-in, once the user has proved everything asked (the password, and
 * a second factor when one is due): the session started or signed in to again with what was
 * proved (`amr`), its cookie, and the pending request resumed.
 */
@Injectable()
export class SignInCompletion {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(AuthorizeFlow) private readonly flow: AuthorizeFlow,
    @Inject(Interactions) private readonly interactions: Interactions,
    @Inject(BrowserSessions) private readonly browser: BrowserSessions,
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
    @Inject(DeviceCookies) private readonly devices: DeviceCookies,
  ) {}

  /** Signs `user` in with `amr` in this browser (`cookieHeader`); the session cookie to set. */
  async signIn(tenantId: string, request: AuthorizationRequest, user: UserView, amr: string[], cookieHeader: string | undefined, origin: RequestOrigin): Promise<{ sessionId: string; cookies: string[] }> {
    const now = this.clock.seconds();
    const held = await this.browser.held(tenantId, cookieHeader);
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
      ? { kind: 'Reauthenticate', userId: user.userId, presentedCookieHash: held.cookieHash, cookieHash: cookie.hash, now, amr }
      : { kind: 'StartSession', tenantId, sessionId, userId: user.userId, cookieHash: cookie.hash, now, amr };
    await this.sessions.run(tenantId, sessionId, command, actor, { origin });
    return { sessionId, cookies: [this.browser.cookie(tenantId, SESSION_COOKIE, cookie.value), this.devices.issue(tenantId, user.username)] };
  }

  /** The pending request resumed with the session just signed in to (`cookies` set alongside). */
  async resume(tenant: TenantView, request: AuthorizationRequest, sessionId: string, cookies: string[], origin: RequestOrigin): Promise<FlowResult> {
    const tenantId = tenant.tenantId;
    const { secondFactor: _proved, ...signedIn } = request;
    // Device grant (RFC 8628 §3.3): back to the user-code page, to allow or deny the device.
    if (request.device) {
      const location = `${this.directory.issuer(tenantId)}/device?interaction=${encodeURIComponent(this.interactions.seal({ ...signedIn, authenticated: true }))}`;
      return { kind: 'redirect', location, cookies };
    }
    const client = await this.directory.client(tenantId, request.clientId);
    if (!client) throw new UserFacingError(new InvalidRequest('the client no longer exists'));
    const result: FlowResult = await this.flow.resume(tenant, client, { ...signedIn, authenticated: true }, await this.sessions.load(tenantId, sessionId), origin);
    return { ...result, cookies: [...cookies, ...(result.cookies ?? [])] };
  }

  /** The pending request, signed in to already (`authenticated`), resumed with the session this browser holds. */
  async resumeHeld(tenant: TenantView, request: AuthorizationRequest, cookieHeader: string | undefined, origin: RequestOrigin): Promise<FlowResult> {
    const client = await this.directory.client(tenant.tenantId, request.clientId);
    if (!client) throw new UserFacingError(new InvalidRequest('the client no longer exists'));
    if (request.device) {
      const location = `${this.directory.issuer(tenant.tenantId)}/device?interaction=${encodeURIComponent(this.interactions.seal(request))}`;
      return { kind: 'redirect', location };
    }
    return this.flow.resume(tenant, client, request, await this.browser.current(tenant, cookieHeader), origin);
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
}
