import { DomainError } from '../shared/domain-error.js';

/** A resource of the tenant as a token request names it (RFC 8707 §2): its identifier and the scopes it declares. */
export interface ResourceTarget {
  identifier: string;
  scopes: string[];
}

/** The scopes of OpenID Connect: about the user, for the client (ID token, userinfo), never for a resource server. */
export const OPENID_SCOPES: ReadonlySet<string> = new Set(['openid', 'profile', 'email', 'address', 'phone', 'offline_access']);

/**
 * The audience and scope of an access token of a grant (RFC 8707 §2.2). A grant made for a
 * resource (its code's `resource`) issues tokens for that resource only; a grant made without
 * one may name any resource of the tenant. A token for a resource carries only the scopes of
 * `scope` the resource declares, OpenID scopes never; possibly none (a resource may decide by
 * the caller's roles alone, as the edge does). Undefined: no resource, the token is the issuer's.
 */
export function resourceToken(grantResource: string | undefined, target: ResourceTarget | undefined, scope: readonly string[]): { identifier: string; scope: string[] } | undefined {
  if (target && grantResource !== undefined && target.identifier !== grantResource) throw new DomainError('invalid_target', 'the grant was made for another resource');
  const identifier = target?.identifier ?? grantResource;
  if (identifier === undefined) return undefined;
  // Without a target, the grant's scope was already limited to the resource's at the authorization request.
  return { identifier, scope: scope.filter((s) => !OPENID_SCOPES.has(s) && (!target || target.scopes.includes(s))) };
}
