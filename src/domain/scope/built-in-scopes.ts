import type { ScopeDefinition } from './scope.events.js';

/**
 * The claims a scope may release: those the server keeps of a user (OpenID Connect Core §5.1).
 * `sub` is released with `openid` and always.
 */
export const RELEASABLE_CLAIMS = ['sub', 'name', 'given_name', 'family_name', 'preferred_username', 'updated_at', 'email', 'email_verified'] as const;

/**
 * The scopes every tenant has from its creation, as OpenID Connect Core §5.4 defines them.
 * `profile` and `email` are data: an admin may change what they release or restrict them.
 * `openid` and `offline_access` are protocol scopes: only their description may change.
 */
export const BUILT_IN_SCOPES: readonly ScopeDefinition[] = [
  { scopeId: 'openid', description: 'Sign the user in (OpenID Connect)', restricted: false, claims: ['sub'] },
  { scopeId: 'profile', description: "The user's name and when the profile last changed", restricted: false, claims: ['name', 'given_name', 'family_name', 'updated_at'] },
  { scopeId: 'email', description: "The user's e-mail address and whether it was verified", restricted: false, claims: ['email', 'email_verified'] },
  { scopeId: 'offline_access', description: 'Keep access while the user is away (a refresh token)', restricted: false, claims: [] },
];

export const PROTOCOL_SCOPES: ReadonlySet<string> = new Set(['openid', 'offline_access']);

export function builtInScope(scopeId: string): ScopeDefinition | undefined {
  return BUILT_IN_SCOPES.find((s) => s.scopeId === scopeId);
}
