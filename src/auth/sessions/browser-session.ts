import { Inject, Injectable } from '@nestjs/common';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { SessionState } from '../../domain/session/session.decider.js';
import { CONFIG, type Config } from '../../config.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { constantTimeEqual } from '../../infrastructure/crypto/hashing.js';
import { TenantCookies } from '../../shared/cookies.js';
import { artefactHash, SessionCommands, sessionOf } from './session-commands.js';

export const SESSION_COOKIE = 'sid';
export const INTERACTION_COOKIE = 'interaction';

export interface HeldSession {
  state: SessionState;
  cookieHash: string;
  current: boolean;
}

/**
 * The browser's sign-in session: a cookie of the tenant (see TenantCookies) whose value is
 * `<session id>.<secret>`; the session stream keeps only its hash and decides whether it
 * is still alive.
 */
@Injectable()
export class BrowserSessions {
  private readonly cookies: TenantCookies;

  constructor(
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(CONFIG) config: Config,
  ) {
    this.cookies = new TenantCookies(config.publicUrl);
  }

  /**
   * The live session the request's cookie names, if its sign-in still counts: within the
   * tenant's session_max_age of it, and used (signed in to, or given a code) within its
   * session_idle_timeout. Past either, the browser must sign in again (held still finds the
   * session, so that the sign-in continues it).
   */
  async current(tenant: TenantView, cookieHeader: string | undefined): Promise<SessionState | undefined> {
    const held = await this.held(tenant.tenantId, cookieHeader);
    if (!held?.current) return undefined;
    const now = this.clock.seconds();
    return now - held.state.authTime > tenant.sessionMaxAge || now - held.state.activeAt > tenant.sessionIdleTimeout ? undefined : held.state;
  }

  /**
   * The live session the request's cookie belongs to: by one of the cookies that open it
   * (`current`), or by one the last sign-in again replaced, which a sign-in sent alongside it
   * still presents. Only the sign-in page asks for the latter.
   */
  held(tenantId: string, cookieHeader: string | undefined): Promise<HeldSession | undefined> {
    return this.heldBy(tenantId, this.read(tenantId, cookieHeader)[SESSION_COOKIE]);
  }

  /** As `held`, from the session cookie's value. */
  async heldBy(tenantId: string, value: string | undefined): Promise<HeldSession | undefined> {
    const sessionId = value && sessionOf(value);
    if (!sessionId) return undefined;
    const state = await this.sessions.load(tenantId, sessionId);
    if (!state.started || state.revoked) return undefined;
    const cookieHash = artefactHash(value);
    const among = (hashes: readonly string[]) => hashes.some((h) => constantTimeEqual(h, cookieHash));
    if (among(state.cookieHashes)) return { state, cookieHash, current: true };
    return among(state.replacedCookieHashes) ? { state, cookieHash, current: false } : undefined;
  }

  /** The request's cookies of this tenant, by their names in the flows. */
  read(tenantId: string, cookieHeader: string | undefined): Record<string, string> {
    return this.cookies.read(tenantId, cookieHeader);
  }

  cookie(tenantId: string, name: string, value: string, maxAge?: number): string {
    return this.cookies.serialize(tenantId, name, value, maxAge);
  }

  clear(tenantId: string, name: string): string {
    return this.cookie(tenantId, name, '', 0);
  }
}
