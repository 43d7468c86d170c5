import { BASELINE } from './baseline.profile.js';
import { FAPI2_MESSAGE_SIGNING } from './fapi2-message-signing.profile.js';
import { FAPI2_SECURITY } from './fapi2-security.profile.js';
import type { SecurityProfileName, SecurityProfileRules } from './profile.js';

const PROFILES: Readonly<Record<SecurityProfileName, SecurityProfileRules>> = {
  baseline: BASELINE,
  'fapi2-security': FAPI2_SECURITY,
  'fapi2-message-signing': FAPI2_MESSAGE_SIGNING,
};

/**
 * The rules of a tenant's profile. An unknown name (a document written by a newer build) gets
 * the strictest profile: refusing too much is safer than accepting too much.
 */
export function profileOf(tenant: { securityProfile: string }): SecurityProfileRules {
  return Object.hasOwn(PROFILES, tenant.securityProfile) ? PROFILES[tenant.securityProfile as SecurityProfileName] : FAPI2_MESSAGE_SIGNING;
}

/** `algs` less those the profile does not allow, in their order. */
export function allowedAlgs<A extends string>(profile: SecurityProfileRules, algs: readonly A[]): A[] {
  return profile.jwsAlgs ? algs.filter((a) => profile.jwsAlgs!.includes(a)) : [...algs];
}

/** Whether the profile lets a JWS be signed or verified with `alg`. */
export function algAllowed(profile: SecurityProfileRules, alg: string): boolean {
  return !profile.jwsAlgs || profile.jwsAlgs.includes(alg);
}

/**
 * Why a tenant's `signing_alg` or a client's registered algs conflict with the profile, or
 * undefined. `fields`: the setting or metadata name for each alg given.
 */
export function algConflict(profileName: string, fields: Readonly<Record<string, string | undefined>>): string | undefined {
  const profile = profileOf({ securityProfile: profileName });
  for (const [name, alg] of Object.entries(fields)) {
    if (alg !== undefined && !algAllowed(profile, alg)) return `${name} ${alg} is not allowed by the security profile ${profileName} (allowed: ${profile.jwsAlgs!.join(', ')})`;
  }
  return undefined;
}

/**
 * The alg of a client's ID tokens and JARM responses when it registered none: RS256 (OpenID
 * Connect Registration §2, JARM §3), or the tenant's own alg when the profile does not allow RS256.
 */
export function defaultResponseAlg<A extends string>(tenant: { securityProfile: string; signingAlg: A }): A | 'RS256' {
  return algAllowed(profileOf(tenant), 'RS256') ? 'RS256' : tenant.signingAlg;
}

/** A client's registered authentication method and algs, as the profile checks them. */
export interface ClientProfileFields {
  tokenEndpointAuthMethod: string;
  idTokenSignedResponseAlg?: string;
  authorizationSignedResponseAlg?: string;
  tokenEndpointAuthSigningAlg?: string;
  requestObjectSigningAlg?: string;
}

/** Why a client's metadata conflicts with the tenant's profile (it could never be served), or undefined. */
export function clientConflict(profileName: string, c: ClientProfileFields): string | undefined {
  const profile = profileOf({ securityProfile: profileName });
  // A method no profile knows is the client decider's to refuse, with its own words.
  if (BASELINE.clientAuthMethods.includes(c.tokenEndpointAuthMethod as never) && !(profile.clientAuthMethods as readonly string[]).includes(c.tokenEndpointAuthMethod)) {
    return `token_endpoint_auth_method ${c.tokenEndpointAuthMethod} is not allowed by the security profile ${profileName} (allowed: ${profile.clientAuthMethods.join(', ')})`;
  }
  return algConflict(profileName, {
    id_token_signed_response_alg: c.idTokenSignedResponseAlg,
    authorization_signed_response_alg: c.authorizationSignedResponseAlg,
    token_endpoint_auth_signing_alg: c.tokenEndpointAuthSigningAlg,
    request_object_signing_alg: c.requestObjectSigningAlg,
  });
}
