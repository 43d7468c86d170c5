import type { ClientView } from '../../../projections/clients.projection.js';
import type { PendingAssertion } from '../client-auth/pending-assertion.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { AccessTokenSpec } from '../../domain/session/session.decider.js';
import { merged } from '../../domain/shared/merged.js';
import { uuidV7 } from '../../infrastructure/crypto/hashing.js';
import type { LoadedKey } from '../../infrastructure/crypto/key-ring.js';
import type { ResponseKeys } from '../tokens/token-issuer.js';
import type { Params } from '../params.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';

export interface GrantRequest {
  tenant: TenantView;
  client: ClientView;
  params: Params;
  issuer: string;
  /** Seconds since the epoch. */
  now: number;
  /** The HTTP request, as the events it causes record it. */
  origin: RequestOrigin;
  /** DPoP (RFC 9449 §5): the thumbprint of the proof's key, which the access token is bound to. */
  jkt?: string;
  /** For a grant that `spendsAssertion`: the client's assertion, whose jti it uses up with the token's append. */
  assertion?: PendingAssertion;
}

/** RFC 6749 §5.1 successful response. */
export interface TokenResponse {
  access_token: string;
  /** `DPoP` for a token bound to a DPoP key (RFC 9449 §5.1). */
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope?: string;
  refresh_token?: string;
  id_token?: string;
}

/** One grant type: its name on the wire and its handler (rule 9). */
export interface Grant {
  readonly grantType: string;
  /** Whether it uses a client assertion's jti up in the append of its token (else that is done before it runs). */
  readonly spendsAssertion?: boolean;
  handle(request: GrantRequest): Promise<TokenResponse>;
}

export const GRANTS = Symbol('GRANTS');

/** A fresh access token of the tenant's lifetime, for the issuer as audience (RFC 9068 §3), signed by `key`; its jti is time-ordered. */
export function newAccessToken({ tenant, issuer, now }: GrantRequest, key: LoadedKey) {
  return { jti: uuidV7(), audience: [issuer], issuedAt: now, expiresAt: now + tenant.accessTokenTtl, kid: key.kid };
}

/** A user grant's access token, with the ID token that goes with it when `openid` is granted. */
export function newUserAccessToken(request: GrantRequest, keys: ResponseKeys): AccessTokenSpec {
  const spec: AccessTokenSpec = merged(newAccessToken(request, keys.access), { idToken: { kid: keys.id.kid, expiresAt: request.now + idTokenTtl(request.tenant) } });
  if (request.jkt) spec.jkt = request.jkt;
  return spec;
}

/** ID tokens outlive short access tokens a little: a relying party checks them once, at sign-in. */
const idTokenTtl = (tenant: TenantView) => Math.max(tenant.accessTokenTtl, 600);
