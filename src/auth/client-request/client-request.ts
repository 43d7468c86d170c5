import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientView } from '../../../projections/clients.projection.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import type { ClientAuthenticationFailed } from '../../domain/client/client.events.js';
import type { RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { ASSERTION_ALGS } from '../../domain/client/client-jwks.js';
import { HMAC_ASSERTION_ALGS } from '../../domain/client/client-secret-jwt.js';
import { allowedAlgs, profileOf } from '../../domain/security-profile/rules.js';
import { Directory } from '../../shared/directory.js';
import { originOf } from '../../shared/request-origin.js';
import { ClientAuthenticator } from '../client-auth/client-authenticator.js';
import type { PendingAssertion } from '../client-auth/pending-assertion.js';
import { requireClientOrigin } from '../cors.js';
import { authorizationOf, formParams } from '../form-request.js';
import { InvalidClient, InvalidRequest } from '../oauth-errors.js';
import { carries, type Params } from '../params.js';

/** private_key_jwt and client_secret_jwt algs, before the tenant's profile narrows them. */
const CLIENT_ASSERTION_ALGS = [...ASSERTION_ALGS, ...HMAC_ASSERTION_ALGS];

/** How one client-authenticated endpoint opens a request. */
export interface ClientEndpoint {
  /** The endpoint's name, as failed authentications record it. */
  name: ClientAuthenticationFailed['data']['endpoint'];
  /** Parameters that belong in the body: refused when sent in the query, where URLs get logged. */
  bodyOnly: readonly string[];
  /** Whether a public client (`none`) may call it. */
  allowPublic: boolean;
  /** Whether a browser may call it (for a public client, from one of its redirect URIs' origins; cors.ts). */
  browser: boolean;
  /**
   * Whether the endpoint uses a client assertion's jti up itself (ClientRequest.assertion), with
   * the facts of its answer; otherwise that is done here, before the request goes on.
   */
  spendsAssertion?: boolean;
}

/** A request past its opening steps: the tenant, the form, where it came from, and the authenticated client. */
export interface ClientRequest {
  tenant: TenantView;
  params: Params;
  origin: RequestOrigin;
  client: ClientView;
  /** With `spendsAssertion`: the client's assertion, whose jti the endpoint must use up before it answers. */
  assertion?: PendingAssertion;
}

/**
 * The opening steps the token, introspection and revocation endpoints share, in this order:
 * the tenant exists; no body parameter in the query (RFC 6749 §3.2); the body is a form
 * (§3.2); the client authenticates (§2.3) by a method the tenant's profile accepts; a browser's request comes from the client's origin
 * (cors.ts). The controller then does its own step only.
 */
@Injectable()
export class ClientRequests {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(ClientAuthenticator) private readonly clients: ClientAuthenticator,
  ) {}

  async open(endpoint: ClientEndpoint, tenantId: string, req: FastifyRequest, reply: FastifyReply): Promise<ClientRequest> {
    const tenant = await this.directory.requireTenant(tenantId);
    // RFC 6749 §3.1: the endpoint's URL may carry a query, whose unknown parameters are ignored.
    const misplaced = endpoint.bodyOnly.find((name) => carries(req.query, name));
    if (misplaced) throw new InvalidRequest(`${misplaced} belongs in the request body, not the query`);
    const params = formParams(req);
    const origin = originOf(req);
    const { client, assertion } = await this.clients.authenticate(tenantId, authorizationOf(req), params, { allowPublic: endpoint.allowPublic, endpoint: endpoint.name, origin, audiences: this.audiences(tenant, endpoint), assertionAlgs: allowedAlgs(profileOf(tenant), CLIENT_ASSERTION_ALGS) });
    if (!endpoint.spendsAssertion) await assertion?.spend();
    try {
      // FAPI 2.0 Security Profile §5.3.2.1: confidential clients, authenticated by private_key_jwt.
      const methods = profileOf(tenant).clientAuthMethods;
      if (!(methods as readonly string[]).includes(client.tokenEndpointAuthMethod)) throw new InvalidClient(`this tenant accepts only the client authentication methods ${methods.join(', ')}`);
      if (endpoint.browser) requireClientOrigin(req, reply, client, true);
    } catch (error) {
      await assertion?.spendAfterFailure();
      throw error;
    }
    return endpoint.spendsAssertion && assertion ? { tenant, params, origin, client, assertion } : { tenant, params, origin, client };
  }

  /**
   * What a client assertion's `aud` may name (RFC 7523 §3 item 3): the issuer, the token
   * endpoint (OpenID Connect Core §9), or the endpoint it is sent to; under FAPI 2.0 the issuer
   * alone (Security Profile §5.3.2.1).
   */
  private audiences(tenant: TenantView, endpoint: ClientEndpoint): string[] {
    const issuer = this.directory.issuer(tenant.tenantId);
    if (profileOf(tenant).assertionAudience === 'issuer') return [issuer];
    return [...new Set([issuer, `${issuer}/token`, `${issuer}/${endpoint.name}`])];
  }
}
