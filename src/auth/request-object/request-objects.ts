import { Inject, Injectable } from '@nestjs/common';
import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { ClientView } from '../../../projections/clients.projection.js';
import { REQUEST_OBJECT_ALGS } from '../../domain/client/client-jwks.js';
import { allowedAlgs, profileOf } from '../../domain/security-profile/rules.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { ClientKeys } from '../client-keys/client-keys.js';
import { JwksUnavailable } from '../client-keys/jwks-fetcher.js';
import { InvalidRequestObject } from '../oauth-errors.js';
import type { Params } from '../params.js';

/** RFC 9101 §10.2 leaves the lifetime to the server: a request object is taken for at most an hour. */
const MAX_LIFETIME_SECONDS = 3600;
/** The claims of the JWT itself, which are no authorization request parameters. */
const JWT_CLAIMS = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti', 'sub']);

/**
 * Request objects by value (RFC 9101 `request`), verified with `jose` against the client's
 * registered `jwks` or the keys at its `jwks_uri` (ClientKeys). Unsigned ones (`alg: none`) are refused, whatever the client registered.
 */
@Injectable()
export class RequestObjects {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(ClientKeys) private readonly keys: ClientKeys,
  ) {}

  /** The authorization request parameters `jwt` carries, once verified as `client`'s (RFC 9101 §6.1). */
  async parameters(tenantId: string, client: ClientView, jwt: string): Promise<Params> {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(jwt).alg;
    } catch {
      throw new InvalidRequestObject('the request object is not a JWT');
    }
    if (jwt.split('.').length !== 3) throw new InvalidRequestObject('encrypted request objects are not supported');
    if (!alg || alg === 'none') throw new InvalidRequestObject('unsigned request objects (alg none) are refused');
    const registered = client.requestObjectSigningAlg ? [client.requestObjectSigningAlg] : [...REQUEST_OBJECT_ALGS];
    const allowed = allowedAlgs(profileOf(await this.directory.requireTenant(tenantId)), registered);
    if (!allowed.includes(alg)) throw new InvalidRequestObject(`the request object must be signed with ${allowed.join(', ')}`);
    const keys = this.keys.of(client);
    if (!keys) throw new InvalidRequestObject('the client registered no jwks or jwks_uri to verify its request objects with');
    const now = this.clock.seconds();
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(jwt, keys, {
        algorithms: allowed,
        // RFC 9101 §4: signed by the client (iss) for this server (aud).
        issuer: client.clientId,
        audience: this.directory.issuer(tenantId),
        requiredClaims: ['exp'],
        currentDate: new Date(now * 1000),
      }));
    } catch (e) {
      if (e instanceof JwksUnavailable) throw new InvalidRequestObject(e.message);
      throw new InvalidRequestObject(e instanceof errors.JOSEError ? `the request object does not verify: ${e.message}` : 'the request object does not verify');
    }
    if ((payload.exp as number) - now > MAX_LIFETIME_SECONDS) throw new InvalidRequestObject('the request object must expire within 60 minutes');
    if (typeof payload.nbf === 'number' && now - payload.nbf > MAX_LIFETIME_SECONDS) throw new InvalidRequestObject('the request object must not be valid since more than 60 minutes (nbf)');
    return requestParameters(payload, client.clientId);
  }
}

/** RFC 9101 §6.3: the request's parameters are the request object's claims, and only those. */
function requestParameters(payload: Record<string, unknown>, clientId: string): Params {
  if (payload.client_id !== undefined && payload.client_id !== clientId) throw new InvalidRequestObject('client_id in the request object is not the client');
  // RFC 9101 §6.1 (no request object inside one); RFC 9126 §2.1 (none referring to a pushed one).
  if (payload.request !== undefined || payload.request_uri !== undefined) throw new InvalidRequestObject('a request object must not carry request or request_uri');
  const params: Params = Object.create(null);
  for (const [name, value] of Object.entries(payload)) {
    if (JWT_CLAIMS.has(name)) continue;
    if (typeof value === 'string') params[name] = value;
    else if (typeof value === 'number' && Number.isSafeInteger(value)) params[name] = String(value);
    else throw new InvalidRequestObject(`parameter ${name.slice(0, 40)} of the request object must be a string`);
  }
  params.client_id = clientId;
  return params;
}
