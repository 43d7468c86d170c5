import { Inject, Injectable } from '@nestjs/common';
import { streams } from '../../../domain/shared/stream-names.js';
import type { AccessTokenIssued } from '../../../domain/session/session.events.js';
import { AggregateStore } from '../../../infrastructure/event-store/aggregate-store.js';
import { Clock } from '../../../infrastructure/nest/clock.js';
import { InvalidScope } from '../../oauth-errors.js';
import { requestedScope } from '../../params.js';
import { Directory } from '../../../shared/directory.js';
import { tokenTarget } from '../../resources/resource-indicator.js';
import { TokenIssuer } from '../../tokens/token-issuer.js';
import { type Grant, type GrantRequest, newAccessToken, type TokenResponse } from '../grant.js';

/** Scopes that only make sense with a user: never granted to a client acting for itself. */
const USER_SCOPES = new Set(['openid', 'offline_access', 'profile', 'email']);

/** RFC 6749 §4.4: the client acts for itself; the token is recorded on the client's token stream. */
@Injectable()
export class ClientCredentialsGrant implements Grant {
  readonly grantType = 'client_credentials';
  readonly spendsAssertion = true;

  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(TokenIssuer) private readonly tokens: TokenIssuer,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  async handle(request: GrantRequest): Promise<TokenResponse> {
    const { tenant, client, params } = request;
    // RFC 8707 §2: a token for a resource has it as audience and only the scopes it declares.
    const target = await tokenTarget(this.directory, tenant.tenantId, params.resource);
    const allowed = client.scope.filter((s) => !USER_SCOPES.has(s) && (!target || target.scopes.includes(s)));
    const requested = requestedScope(params);
    if (requested?.some((s) => !allowed.includes(s))) throw new InvalidScope(target ? 'the requested scope is not allowed for this client and resource' : 'the requested scope is not allowed for this client');
    const scope = requested ?? allowed;
    const key = await this.tokens.accessKey(tenant);
    const { jti, audience: issuerAudience, issuedAt, expiresAt, kid } = newAccessToken(request, key);
    const audience = target ? [target.identifier] : issuerAudience;
    const data: AccessTokenIssued['data'] = { tenantId: tenant.tenantId, grantType: 'client_credentials', jti, audience, issuedAt, expiresAt, kid, clientId: client.clientId, sub: client.clientId, scope };
    if (request.jkt) data.jkt = request.jkt;
    // A fact appended directly, not through a stateless decider: on the hottest path the decider's
    // round trip costs more than it checks (README, architecture). Signed while the event is being
    // made durable (the append is handed to the writer first, as an ES256 signature is made on
    // this thread); answered only once both are done. A client assertion's jti is used up in the
    // same append (RFC 7523 §3 item 7): a replay appends neither and is refused.
    const stream = streams.clientTokens(tenant.tenantId, client.clientId);
    const issued: [{ type: 'AccessTokenIssued'; data: AccessTokenIssued['data'] }] = [{ type: 'AccessTokenIssued', data }];
    const [, accessToken] = await Promise.all([
      request.assertion
        ? request.assertion.spendWith({ streamId: stream, events: issued })
        : this.aggregates.record(stream, issued, { tenantId: tenant.tenantId, actor: `client:${client.clientId}`, now: this.clock.now(), ...request.origin }),
      this.tokens.accessToken(tenant, data, key),
    ]);
    const response: TokenResponse = { access_token: accessToken, token_type: data.jkt ? 'DPoP' : 'Bearer', expires_in: tenant.accessTokenTtl };
    if (scope.length) response.scope = scope.join(' ');
    return response;
  }
}
