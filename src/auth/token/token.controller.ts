import { Controller, Header, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { allowedAlgs, profileOf } from '../../domain/security-profile/rules.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { Directory } from '../../shared/directory.js';
import { type ClientEndpoint, ClientRequests } from '../client-request/client-request.js';
import { DPOP_ALGS, DpopProofs } from '../dpop/dpop-proofs.js';
import { InvalidDpopProof, InvalidRequest, UnauthorizedClient, UnsupportedGrantType } from '../oauth-errors.js';
import { type Grant, type GrantRequest, GRANTS, type TokenResponse } from './grant.js';

const TOKEN_ENDPOINT: ClientEndpoint = {
  name: 'token',
  // The parameters a token request may carry (in its body).
  bodyOnly: ['grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'scope', 'client_id', 'client_secret', 'client_assertion', 'client_assertion_type', 'device_code'],
  allowPublic: true,
  browser: true,
  spendsAssertion: true,
};

/** RFC 6749 §3.2 token endpoint, at `/token` and `/oauth/token`. */
@Controller(':tenant')
export class TokenController {
  private readonly grants: Map<string, Grant>;

  constructor(
    @Inject(GRANTS) grants: Grant[],
    @Inject(Directory) private readonly directory: Directory,
    @Inject(ClientRequests) private readonly requests: ClientRequests,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(DpopProofs) private readonly dpop: DpopProofs,
  ) {
    this.grants = new Map(grants.map((g) => [g.grantType, g]));
  }

  @Post(['token', 'oauth/token'])
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  @Header('pragma', 'no-cache')
  async token(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<TokenResponse> {
    const { tenant, params, origin, client, assertion } = await this.requests.open(TOKEN_ENDPOINT, tenantId, req, reply);
    try {
      const grantType = params.grant_type;
      if (!grantType) throw new InvalidRequest('grant_type is required');
      const grant = this.grants.get(grantType);
      if (!grant) throw new UnsupportedGrantType(`grant_type ${grantType} is not supported`);
      if (!client.grantTypes.includes(grant.grantType)) throw new UnauthorizedClient(`the client may not use ${grant.grantType}`);
      // RFC 9449 §5: a proof binds the access token to its key; §5.2: some clients must send one.
      const proof = await this.dpop.check(req, { tenantId, at: 'token', nonceRequired: tenant.dpopNonceRequired === true, origin, algs: allowedAlgs(profileOf(tenant), DPOP_ALGS) });
      if (!proof && client.dpopBoundAccessTokens) throw new InvalidDpopProof('this client must send a DPoP proof (dpop_bound_access_tokens)');
      // FAPI 2.0 Security Profile §5.3.2.1: only sender-constrained access tokens.
      if (!proof && profileOf(tenant).requireDpop) throw new InvalidDpopProof('this tenant requires a DPoP proof with every token request');
      const now = this.clock.seconds();
      const request: GrantRequest = { tenant, client, params, issuer: this.directory.issuer(tenantId), now, origin };
      if (proof) request.jkt = proof.jkt;
      // RFC 7523 §3 item 7: the assertion's jti is used up with the token, or before the grant runs.
      if (assertion && grant.spendsAssertion) request.assertion = assertion;
      else await assertion?.spend();
      const response = await grant.handle(request);
      // A grant that spends assertions but let this one through unspent: spent before the answer.
      if (assertion && !assertion.isSpent) await assertion.spend();
      return response;
    } catch (error) {
      await assertion?.spendAfterFailure();
      throw error;
    }
  }
}
