import { RELEASABLE_CLAIMS } from '../domain/scope/built-in-scopes.js';

export const SUPPORTED_SCOPES = ['openid', 'profile', 'email', 'offline_access'];

/** The admin API's scopes: read configuration and views, change them, read the audit trail. */
export const ADMIN_SCOPES = ['central:read', 'central:write', 'central:audit'] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

/**
 * Scopes a user's grant carries only when the user holds them through a role (see
 * auth/roles/role-scopes.ts): the admin scopes and the event feed's. Clients get them for their own tokens by their
 * registration alone.
 */
export function restrictedForUsers(scope: string): boolean {
  return (ADMIN_SCOPES as readonly string[]).includes(scope) || scope === FEED_SCOPE || scope === SSF_SCOPE;
}

/** The event feed's scope (`{issuer}/events`): restricted like the admin scopes, and honoured on a client's own token only. */
export const FEED_SCOPE = 'events:read';

/** Shared Signals: a receiver's scope to manage its streams and poll them; restricted like the feed's, on a client's own token only. */
export const SSF_SCOPE = 'ssf:manage';

export const STANDARD_CLAIMS = ['iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'sid', 'at_hash', 'azp', /* MFA */ 'acr', 'amr', ...RELEASABLE_CLAIMS];
