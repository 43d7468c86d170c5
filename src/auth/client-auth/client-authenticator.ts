import { Inject, Injectable } from '@nestjs/common';
import type { ClientView } from '../../../projections/clients.projection.js';
import { clientTokensDecider } from '../../domain/client/client-tokens.decider.js';
import type { ClientAuthenticationFailed } from '../../domain/client/client.events.js';
import { streams } from '../../domain/shared/stream-names.js';
import { ClientSecrets } from '../../infrastructure/crypto/client-secrets.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { InvalidClient, InvalidRequest } from '../oauth-errors.js';
import { FailureBudget } from '../../shared/failure-budget.js';
import type { Params } from '../params.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { UsedJtis } from '../one-time/used-jtis.js';
import { PendingAssertion } from './pending-assertion.js';
import { ClientKeys } from '../client-keys/client-keys.js';
import { assertionClientId, assertionMethod, JWT_BEARER, verifyAssertion } from './client-assertion.js';
import { HMAC_ASSERTION_ALGS, hmacKeyFits } from '../../domain/client/client-secret-jwt.js';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt' | /* client_secret_jwt */ 'client_secret_jwt';

interface Presented {
  method: ClientAuthMethod;
  clientId: string;
  secret?: string;
  /** private_key_jwt, client_secret_jwt: the JWT, not yet verified. */
  assertion?: string;
}

/** A registered client's failed authentications recorded in each minute's window (per server); the next one recorded counts the others. */
const CLIENT_FAILURES_RECORDED_PER_MINUTE = 10;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** RFC 6749 §2.3.1: Basic credentials, each form-urlencoded before base64. */
function fromBasic(credentials: string): Presented {
  // token68 in padded base64 (RFC 7617 §2, RFC 4648 §4); Buffer would skip any other character and stop at '='.
  if (!BASE64.test(credentials) || credentials.length % 4 !== 0) throw new InvalidClient('malformed Basic credentials');
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new InvalidClient('malformed Basic credentials');
  try {
    return { method: 'client_secret_basic', clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')), secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')) };
  } catch {
    throw new InvalidClient('malformed Basic credentials');
  }
}

/** Which method the request used; more than one is an error (RFC 6749 §2.3). */
export function presentedCredentials(authorization: string | undefined, params: Params): Presented {
  if (authorization?.trim()) {
    // Only Basic is accepted in the Authorization header; any other use of it is invalid_client.
    const [, scheme, credentials] = /^(\S+)\s*(.*)$/s.exec(authorization.trim())!;
    if (scheme.toLowerCase() !== 'basic') throw new InvalidClient('the Authorization header accepts only Basic client credentials');
    if (!credentials) throw new InvalidClient('malformed Basic credentials');
    if (params.client_secret !== undefined) throw new InvalidRequest('use only one client authentication method');
    const p = fromBasic(credentials);
    if (params.client_id !== undefined && params.client_id !== p.clientId) throw new InvalidRequest('client_id does not match the Basic credentials');
    return p;
  }
  if (params.client_assertion !== undefined || params.client_assertion_type !== undefined) return fromAssertion(params);
  if (params.client_id === undefined) throw new InvalidClient('client authentication is required');
  if (params.client_secret !== undefined) return { method: 'client_secret_post', clientId: params.client_id, secret: params.client_secret };
  return { method: 'none', clientId: params.client_id };
}

/** RFC 7521 §4.2: a client assertion, and no other credentials beside it. */
function fromAssertion(params: Params): Presented {
  if (params.client_assertion_type !== JWT_BEARER) throw new InvalidClient(`client_assertion_type must be ${JWT_BEARER}`);
  if (!params.client_assertion) throw new InvalidClient('client_assertion is required with client_assertion_type');
  if (params.client_secret !== undefined) throw new InvalidRequest('use only one client authentication method');
  const clientId = assertionClientId(params.client_assertion);
  // RFC 7521 §4.2: a client_id sent beside the assertion names the same client.
  if (params.client_id !== undefined && params.client_id !== clientId) throw new InvalidClient('client_id does not match the client assertion');
  return { method: assertionMethod(params.client_assertion), clientId, assertion: params.client_assertion };
}

/**
 * Authenticates the client at the token, introspection and revocation endpoints with the
 * method it registered. Secrets are compared as keyed hashes (client-secrets.ts) in constant time. A registered
 * client's failure is recorded (ClientAuthenticationFailed, within a FailureBudget) before it
 * is answered.
 */
@Injectable()
export class ClientAuthenticator {
  private readonly failures = new FailureBudget(CLIENT_FAILURES_RECORDED_PER_MINUTE);

  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(ClientSecrets) private readonly secrets: ClientSecrets,
    @Inject(UsedJtis) private readonly jtis: UsedJtis,
    @Inject(ClientKeys) private readonly keys: ClientKeys,
  ) {}

  /**
   * The authenticated client, and for an assertion its jti still to use up (PendingAssertion):
   * the caller spends it, with the facts of its answer or alone, before answering.
   */
  async authenticate(
    tenantId: string,
    authorization: string | undefined,
    params: Params,
    options: { allowPublic: boolean; endpoint: ClientAuthenticationFailed['data']['endpoint']; origin: RequestOrigin; audiences: string[]; assertionAlgs?: readonly string[] },
  ): Promise<{ client: ClientView; assertion?: PendingAssertion }> {
    const presented = presentedCredentials(authorization, params);
    const client = await this.directory.client(tenantId, presented.clientId);
    if (!client) throw new InvalidClient('client authentication failed');
    const wrongMethod = client.tokenEndpointAuthMethod !== presented.method;
    if (!wrongMethod && presented.assertion !== undefined) return this.byAssertion(tenantId, client, presented.assertion, options);
    const wrongSecret = presented.method !== 'none' && !this.secretMatches(tenantId, client, presented.secret ?? '');
    if (wrongMethod || wrongSecret) return this.failed(tenantId, client, presented.method, options, wrongMethod);
    if (presented.method === 'none' && !options.allowPublic) throw new InvalidClient('this endpoint requires client authentication');
    return { client };
  }

  /** private_key_jwt, client_secret_jwt: the assertion verifies; its jti is the caller's to use up (RFC 7523 §3 item 7). */
  private async byAssertion(tenantId: string, client: ClientView, assertion: string, options: { endpoint: ClientAuthenticationFailed['data']['endpoint']; origin: RequestOrigin; audiences: string[]; assertionAlgs?: readonly string[] }): Promise<{ client: ClientView; assertion: PendingAssertion }> {
    const method = client.tokenEndpointAuthMethod as ClientAuthMethod;
    const verified = method === 'client_secret_jwt' ? await this.bySecret(tenantId, client, assertion, options) : await verifyAssertion(assertion, client, this.keys.of(client), options.audiences, this.clock.now(), options.assertionAlgs);
    if (typeof verified === 'string') return this.failed(tenantId, client, method, options, false, 'invalid_assertion', verified);
    const use = { tenantId, kind: 'client_assertion' as const, issuer: client.clientId, jti: verified.jti, expiresAt: verified.exp, clientId: client.clientId, actor: `client:${client.clientId}`, origin: options.origin };
    return { client, assertion: new PendingAssertion(this.jtis, use, () => this.failed(tenantId, client, method, options, false, 'replayed_assertion', 'the client assertion was used before')) };
  }

  /**
   * client_secret_jwt: the assertion's HMAC under the client's secret, or under the one its last
   * rotation replaced while that one is still valid (both kept sealed, opened here).
   */
  private async bySecret(tenantId: string, client: ClientView, assertion: string, options: { audiences: string[]; assertionAlgs?: readonly string[] }): Promise<Awaited<ReturnType<typeof verifyAssertion>>> {
    const secrets = [this.secrets.open(tenantId, client.clientId, client.secretDigest)];
    if ((client.previousSecretValidUntil ?? 0) > this.clock.seconds()) secrets.push(this.secrets.open(tenantId, client.clientId, client.previousSecretDigest));
    let verified: Awaited<ReturnType<typeof verifyAssertion>> = 'the client\'s secret is not kept for client_secret_jwt: rotate it';
    for (const secret of secrets) {
      if (secret === undefined) continue;
      const fitting = HMAC_ASSERTION_ALGS.filter((alg) => hmacKeyFits(alg, secret));
      verified = await verifyAssertion(assertion, client, Buffer.from(secret, 'utf8'), options.audiences, this.clock.now(), options.assertionAlgs, fitting);
      if (typeof verified !== 'string') break;
    }
    return verified;
  }

  /** Records a registered client's failure (within the budget), then refuses it. */
  private async failed(
    tenantId: string,
    client: ClientView,
    method: ClientAuthMethod,
    options: { endpoint: ClientAuthenticationFailed['data']['endpoint']; origin: RequestOrigin },
    wrongMethod: boolean,
    assertion?: 'invalid_assertion' | 'replayed_assertion',
    description = 'client authentication failed',
  ): Promise<never> {
    const now = this.clock.now();
    const budget = this.failures.spend(`${tenantId}\n${client.clientId}`, now.getTime());
    if (budget.record) {
      const failed = { kind: 'RecordAuthenticationFailure' as const, tenantId, clientId: client.clientId, endpoint: options.endpoint, method, wrongMethod, assertion, unrecordedBefore: budget.unrecordedBefore };
      await this.aggregates.execute(streams.clientTokens(tenantId, client.clientId), clientTokensDecider, failed, { tenantId, actor: 'anonymous', now, ...options.origin });
    }
    throw new InvalidClient(description);
  }

  /** The client's secret, or the one its last rotation replaced while that one is still valid. */
  private secretMatches(tenantId: string, client: ClientView, secret: string): boolean {
    if (client.secretDigest && this.secrets.verify(tenantId, client.clientId, secret, client.secretDigest)) return true;
    const previous = client.previousSecretDigest;
    return previous !== undefined && (client.previousSecretValidUntil ?? 0) > this.clock.seconds() && this.secrets.verify(tenantId, client.clientId, secret, previous);
  }
}
