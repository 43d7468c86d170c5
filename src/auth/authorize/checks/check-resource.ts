import { OPENID_SCOPES } from '../../../domain/session/resource-target.js';
import { InvalidScope, InvalidTarget } from '../../oauth-errors.js';
import { resourceNamed } from '../../resources/resource-indicator.js';
import type { Check } from './check.js';

/**
 * RFC 8707 §2: one `resource` per authorization request here (its tokens have one audience);
 * several are `invalid_target`, not the generic repeated-parameter error. Runs before
 * check-repeated.
 */
export const checkResourceOnce: Check = ({ repeated }) => {
  if (repeated.includes('resource')) throw new InvalidTarget('send one resource per authorization request');
};

/**
 * RFC 8707 §2: `resource` names a resource of the tenant by its identifier. The grant is then
 * for it: the scopes it does not declare are left out (the OpenID ones stay, for the ID token
 * and userinfo), as check-scope leaves out those the client is not registered for. None of the
 * resource's may be left: its tokens then carry no scope, and the resource decides by the
 * caller's roles (the edge's permissions); nothing left at all is `invalid_scope`. Runs after
 * check-scope.
 */
export const checkResource: Check = async (ctx, { directory }) => {
  const value = ctx.params.resource;
  if (value === undefined) return;
  const resource = await resourceNamed(directory, ctx.tenantId, value);
  const scope = ctx.request.scope!.filter((s) => OPENID_SCOPES.has(s) || resource.scopes.includes(s));
  if (scope.length === 0) throw new InvalidScope('none of the requested scopes is allowed for this client and resource');
  ctx.request.scope = scope;
  ctx.request.resource = resource.identifier;
};
