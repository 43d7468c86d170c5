import type { DomainEvent } from '../shared/decider.js';
import type { SecurityProfileName } from '../security-profile/profile.js';

/** The rules each profile sets are in src/domain/security-profile/. */
export type SecurityProfile = SecurityProfileName;
export const SIGNING_ALGS = ['ES256', 'RS256', 'EdDSA'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

export interface TenantSettings {
  securityProfile: SecurityProfile;
  /** Seconds. */
  accessTokenTtl: number;
  /** Seconds; a refresh token (and its session) idles out after this. */
  refreshTokenTtl: number;
  signingAlg: SigningAlg;
  /** Issue refresh tokens to OpenID requests without offline_access (when the client may use the grant). */
  refreshWithoutOfflineAccess: boolean;
  /**
   * Seconds a browser sign-in counts for: past it, the authorization endpoint asks for the
   * password again (`login_required` with `prompt=none`). Tokens already issued live on by their
   * own lifetimes. Absent from tenants created before it existed: DEFAULT_SESSION_MAX_AGE.
   */
  sessionMaxAge?: number;
  /**
   * Seconds a browser session may go unused (no sign-in, no code issued) before its sign-in no
   * longer counts, as with sessionMaxAge. Absent from tenants created before it existed:
   * DEFAULT_SESSION_IDLE_TIMEOUT.
   */
  sessionIdleTimeout?: number;
  /** Seconds between automatic key rotations (a new key announced, then signing); absent: keys rotate only on request. */
  keyRotationPeriod?: number;
  /** Anyone may sign up at `{issuer}/users/registrations`; absent or false: only an admin creates users there. */
  registrationEnabled?: boolean;
  /** The operator tenant: its tokens with the admin scopes act on every tenant (see the admin API). */
  operator?: boolean;
  // DPoP (RFC 9449 §8, §9): proofs must carry a server nonce; absent or false: no nonce is asked for.
  dpopNonceRequired?: boolean;
  // PAR (RFC 9126 §5):
  /** Every client of the tenant must push its authorization requests (`/par`); absent or false: only those that registered so. */
  requirePushedAuthorizationRequests?: boolean;
}

/** Seven days. */
export const DEFAULT_SESSION_MAX_AGE = 7 * 24 * 3600;
/** Three days. */
export const DEFAULT_SESSION_IDLE_TIMEOUT = 3 * 24 * 3600;

export type TenantCreated = DomainEvent<'TenantCreated', { tenantId: string } & TenantSettings>;
/** The tenant's settings as they are from now on, whole (the operator flag aside: it never changes). */
export type TenantSettingsChanged = DomainEvent<'TenantSettingsChanged', { tenantId: string } & Omit<TenantSettings, 'operator'>>;
/**
 * The tenant is gone: none of its endpoints answers, so none of its sessions or tokens can be
 * used or pass introspection any more; its events remain, and its id is never given again.
 */
export type TenantDeleted = DomainEvent<'TenantDeleted', { tenantId: string }>;
export type TenantEvent = TenantCreated | TenantSettingsChanged | TenantDeleted;
