import { Controller, Header, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { ClientAuthenticator } from '../client-auth/client-authenticator.js';
import { requireClientOrigin } from '../cors.js';
import { authorizationOf, formParams } from '../form-request.js';
import { InvalidRequest, UnauthorizedClient, UnsupportedGrantType } from '../oauth-errors.js';
import { carries } from '../params.js';
import { type Grant, GRANTS, type TokenResponse } from './grant.js';
import { originOf } from '../../shared/request-origin.js';

/** The parameters a token request may carry (in its body). */
const TOKEN_REQUEST_PARAMETERS = ['grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'scope', 'client_id', 'client_secret', 'client_assertion', 'client_assertion_type'];

/** RFC 6749 §3.2 token endpoint, at `/token` and `/oauth/token`. */
@Controller(':tenant')
export class TokenController {
  private readonly grants: Map<string, Grant>;

  constructor(
    @Inject(GRANTS) grants: Grant[],
    @Inject(Directory) private readonly directory: Directory,
    @Inject(ClientAuthenticator) private readonly clients: ClientAuthenticator,
    @Inject(Clock) private readonly clock: Clock,
  ) {
    this.grants = new Map(grants.map((g) => [g.grantType, g]));
  }

  @Post(['token', 'oauth/token'])
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  @Header('pragma', 'no-cache')
  async token(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<TokenResponse> {
    const tenant = await this.directory.requireTenant(tenantId);
    // RFC 6749 §3.2: the endpoint's URL may carry a query, whose unknown parameters are ignored
    // (§3.1); a token request's own parameters there (where URLs get logged) are refused.
    const misplaced = TOKEN_REQUEST_PARAMETERS.find((name) => carries(req.query, name));
    if (misplaced) throw new InvalidRequest(`${misplaced} belongs in the request body, not the query`);
    const params = formParams(req);
    const origin = originOf(req);
    const client = await this.clients.authenticate(tenantId, authorizationOf(req), params, { allowPublic: true, endpoint: 'token', origin });
    requireClientOrigin(req, reply, client, true);
    const grantType = params.grant_type;
    if (!grantType) throw new InvalidRequest('grant_type is required');
    const grant = this.grants.get(grantType);
    if (!grant) throw new UnsupportedGrantType(`grant_type ${grantType} is not supported`);
    if (!client.grantTypes.includes(grant.grantType)) throw new UnauthorizedClient(`the client may not use ${grant.grantType}`);
    const now = this.clock.seconds();
    return grant.handle({ tenant, client, params, issuer: this.directory.issuer(tenantId), now, origin });
  }
}
