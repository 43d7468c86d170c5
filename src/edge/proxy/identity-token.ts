import { Inject, Injectable } from '@nestjs/common';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { SigningAlg } from '../../domain/tenant/tenant.events.js';
import { signJwt } from '../../infrastructure/crypto/jws.js';
import { KeyRing } from '../../infrastructure/crypto/key-ring.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { setBounded } from '../../shared/bounded-map.js';
import { Directory } from '../../shared/directory.js';
import type { EdgeCaller } from '../caller.js';
import { PROXY_SETTINGS, type ProxySettings } from './proxy-settings.js';

/** The JWT `typ` of identity assertions, so that no verifier takes one for an access token (RFC 8725 §3.11). */
export const IDENTITY_TYP = 'identity+jwt';
const CACHE_LIMIT = 10_000;

/**
 * The caller's identity as the upstream gets it: a JWT signed with the tenant's current key
 * (verifiable with the tenant's JWKS), `aud` the resource's identifier, the caller's `sub`,
 * `client_id`, `scope` and the permissions it holds on the resource, valid for a short while.
 * The same assertion is reused for the first half of its life: signing on every request would
 * cost more than the rest of the proxy's checks together.
 */
@Injectable()
export class IdentityTokens {
  private readonly cache = new Map<string, { jwt: string; renewAt: number }>();

  constructor(
    @Inject(KeyRing) private readonly keys: KeyRing,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(PROXY_SETTINGS) private readonly settings: ProxySettings,
  ) {}

  async of(tenant: TenantView, audience: string, caller: EdgeCaller, permissions: readonly string[]): Promise<string> {
    const now = this.clock.seconds();
    const cacheKey = JSON.stringify([tenant.tenantId, audience, caller.sub, caller.clientId ?? null, caller.scopes, permissions]);
    const cached = this.cache.get(cacheKey);
    if (cached && cached.renewAt > now) return cached.jwt;
    const key = await this.keys.signingKey(tenant.tenantId, tenant.signingAlg as SigningAlg);
    const ttl = this.settings.identityTtl;
    const claims: Record<string, unknown> = { iss: this.directory.issuer(tenant.tenantId), sub: caller.sub, aud: audience };
    if (caller.clientId) claims.client_id = caller.clientId;
    if (caller.scopes.length) claims.scope = caller.scopes.join(' ');
    claims.permissions = permissions;
    claims.iat = now;
    claims.exp = now + ttl;
    const jwt = await signJwt({ alg: key.alg, kid: key.kid, typ: IDENTITY_TYP }, claims, key.privateKey);
    setBounded(this.cache, cacheKey, { jwt, renewAt: now + Math.floor(ttl / 2) }, CACHE_LIMIT);
    return jwt;
  }
}
