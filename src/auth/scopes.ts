/**
 * Claims released by each scope at userinfo (and in the ID token when no access token is
 * issued). A Map: a granted scope such as `toString` must find nothing here.
 */
export const SCOPE_CLAIMS: ReadonlyMap<string, readonly string[]> = new Map([
  ['openid', ['sub']],
  ['profile', ['name', 'given_name', 'family_name', 'updated_at']],
  ['email', ['email', 'email_verified']],
]);

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
  return (ADMIN_SCOPES as readonly string[]).includes(scope) || scope === FEED_SCOPE;
}

/** The event feed's scope (`{issuer}/events`): restricted like the admin scopes, and honoured on a client's own token only. */
export const FEED_SCOPE = 'events:read';

export const STANDARD_CLAIMS = ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'sid', 'at_hash', 'azp', ...SCOPE_CLAIMS.get('profile')!, ...SCOPE_CLAIMS.get('email')!];
