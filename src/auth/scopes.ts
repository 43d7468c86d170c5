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

export const STANDARD_CLAIMS = ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'sid', 'at_hash', 'azp', ...SCOPE_CLAIMS.get('profile')!, ...SCOPE_CLAIMS.get('email')!];
