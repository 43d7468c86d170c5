import { Inject, Injectable } from '@nestjs/common';
import { defaultResponseAlg } from '../../domain/security-profile/rules.js';
import { SIGNING_ALGS, type SigningAlg } from '../../domain/tenant/tenant.events.js';
import { signJwt } from '../../infrastructure/crypto/jws.js';
import { KeyRing } from '../../infrastructure/crypto/key-ring.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';

/** Every response mode taken at /authorize (OAuth 2.0 Form Post Response Mode; JARM §2.3). */
export type ResponseMode = 'query' | 'form_post' | 'query.jwt' | 'form_post.jwt';

/** JARM §2.1: the response JWT is short-lived; the code it carries lives 60 s as well. */
const RESPONSE_JWT_TTL_SECONDS = 60;

/** The transport of a response mode: how the browser carries the answer to the client. */
export const transportOf = (mode: ResponseMode): 'query' | 'form_post' => (mode === 'form_post' || mode === 'form_post.jwt' ? 'form_post' : 'query');
export const isJwtMode = (mode: ResponseMode): boolean => mode.endsWith('.jwt');

/**
 * JWT Secured Authorization Response Mode (JARM): the parameters of an authorization response,
 * success or error, signed by the tenant's current key of the client's
 * `authorization_signed_response_alg` (never `none`), with `iss`, `aud` the client and a short
 * `exp` (JARM §2.1).
 */
@Injectable()
export class Jarm {
  constructor(
    @Inject(KeyRing) private readonly keys: KeyRing,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** The `response` parameter carrying `fields` (undefined ones left out). */
  async response(tenantId: string, clientId: string, fields: Record<string, string | undefined>): Promise<string> {
    const client = await this.directory.client(tenantId, clientId);
    const registered = client?.authorizationSignedResponseAlg;
    // JARM §3: without `authorization_signed_response_alg`, RS256 (a key every tenant has) where the profile allows it.
    const alg = registered && (SIGNING_ALGS as readonly string[]).includes(registered) ? (registered as SigningAlg) : (defaultResponseAlg(await this.directory.requireTenant(tenantId)) as SigningAlg);
    const key = await this.keys.signingKey(tenantId, alg);
    const now = this.clock.seconds();
    const payload: Record<string, unknown> = { iss: this.directory.issuer(tenantId), aud: clientId, exp: now + RESPONSE_JWT_TTL_SECONDS, iat: now };
    for (const [name, value] of Object.entries(fields)) if (value !== undefined && name !== 'iss') payload[name] = value;
    return signJwt({ alg: key.alg, kid: key.kid }, payload, key.privateKey);
  }
}
