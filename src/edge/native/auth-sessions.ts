import { Inject, Injectable } from '@nestjs/common';
import type { CheckedRequest } from '../../auth/authorize/checks/index.js';
import { UsedJtis } from '../../auth/one-time/used-jtis.js';
import { randomToken } from '../../infrastructure/crypto/hashing.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import type { SecondFactorChallenge } from './native-second-factor.js';

/** How long one step of a native sign-in may take, in seconds. */
export const AUTH_SESSION_TTL_SECONDS = 300;
/** Wrong answers to the challenges of one sign-in before it ends. */
export const MAX_WRONG_ANSWERS = 5;

/** Where a native sign-in stands: what the next request must prove. */
export type AuthStep =
  | { kind: 'password' }
  | { kind: 'second_factor'; userId: string; authTime: number; proven: string[]; challenge: SecondFactorChallenge };

/** What an auth_session carries, sealed: the checked request, its client (and DPoP key), and the step. */
export interface AuthSessionState {
  /** This step's own id: each auth_session is spent by its first use. */
  id: string;
  tenantId: string;
  clientId: string;
  /** RFC 7638 thumbprint of the DPoP key of the first request, when it carried a proof (draft §9.6.1). */
  jkt?: string;
  request: CheckedRequest;
  step: AuthStep;
  /** Wrong answers so far in this sign-in. */
  wrong: number;
  expiresAt: number;
}

/**
 * The auth_session of OAuth 2.0 for First-Party Applications §5.3.1: the state of a sign-in,
 * sealed (AES-256-GCM, tenant as context) so the app can neither read nor alter it, short-lived,
 * and single use: its id is claimed in the log (UsedJtis, every server) when a request spends
 * it, so a replayed one is refused; the log holds only a hash of that id.
 */
@Injectable()
export class AuthSessions {
  constructor(
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
    @Inject(UsedJtis) private readonly used: UsedJtis,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** A new auth_session for the next step. */
  issue(s: Omit<AuthSessionState, 'id' | 'expiresAt'>): string {
    const state: AuthSessionState = { ...s, id: randomToken(32), expiresAt: this.clock.seconds() + AUTH_SESSION_TTL_SECONDS };
    return this.keys.seal('auth-session', JSON.stringify(state), s.tenantId);
  }

  /** The state `value` carries, or undefined when it is forged, altered, another tenant's or expired. */
  open(tenantId: string, value: string): AuthSessionState | undefined {
    let s: AuthSessionState;
    try {
      s = JSON.parse(this.keys.open('auth-session', value, tenantId)) as AuthSessionState;
    } catch {
      return undefined;
    }
    return s.tenantId === tenantId && this.clock.seconds() < s.expiresAt ? s : undefined;
  }

  /** Spends `s`: true the first time, false on a replay. */
  spend(s: AuthSessionState, origin: RequestOrigin): Promise<boolean> {
    return this.used.use({ tenantId: s.tenantId, kind: 'auth_session', issuer: s.clientId, jti: s.id, expiresAt: s.expiresAt, clientId: s.clientId, actor: `client:${s.clientId}`, origin });
  }
}
