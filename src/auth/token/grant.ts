import type { ClientView } from '../../../projections/clients.projection.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import { uuidV7 } from '../../infrastructure/crypto/hashing.js';
import type { Params } from '../params.js';

export interface GrantRequest {
  tenant: TenantView;
  client: ClientView;
  params: Params;
  issuer: string;
  /** Seconds since the epoch. */
  now: number;
  /** The HTTP request's id, which the events it causes carry. */
  correlationId: string;
}

/** RFC 6749 §5.1 successful response. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope?: string;
  refresh_token?: string;
  id_token?: string;
}

/** One grant type: its name on the wire and its handler (rule 9). */
export interface Grant {
  readonly grantType: string;
  handle(request: GrantRequest): Promise<TokenResponse>;
}

export const GRANTS = Symbol('GRANTS');

/** A fresh access token of the tenant's lifetime, for the issuer as audience (RFC 9068 §3); its jti is time-ordered. */
export function newAccessToken({ tenant, issuer, now }: GrantRequest) {
  return { jti: uuidV7(), audience: [issuer], issuedAt: now, expiresAt: now + tenant.accessTokenTtl };
}

/** ID tokens outlive short access tokens a little: a relying party checks them once, at sign-in. */
export const idTokenTtl = (tenant: TenantView) => Math.max(tenant.accessTokenTtl, 600);
