import { InvalidScope } from '../../oauth-errors.js';
import { scopeList } from '../../params.js';
import { restrictedForUsers } from '../../scopes.js';
import type { Check } from './check.js';

/**
 * OpenID Connect Core §3.1.2.1 (scope values not understood are ignored) and RFC 6749 §3.3
 * (the server may grant less): values the client is not registered for are left out, and the
 * token response names what was granted. Nothing left is `invalid_scope`.
 * `offline_access` asks for a refresh token (OpenID Connect Core §11): a client that may not
 * use the refresh_token grant is not granted it, so that the scope granted says so. The
 * restricted scopes are granted only when asked for, and only to a user whose roles hold them:
 * that is decided once the user is known.
 */
export const checkScope: Check = (ctx) => {
  const client = ctx.client!;
  const requested = scopeList(ctx.params.scope);
  const grantable = client.grantTypes.includes('refresh_token') ? client.scope : client.scope.filter((s) => s !== 'offline_access');
  const scope = requested ? requested.filter((s) => grantable.includes(s)) : grantable.filter((s) => s !== 'offline_access' && !restrictedForUsers(s));
  if (scope.length === 0) throw new InvalidScope(requested ? 'none of the requested scopes is allowed for this client' : 'the client is registered for no scope');
  ctx.request.scope = scope;
};
