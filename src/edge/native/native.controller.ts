import { Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ClientEndpoint, ClientRequests } from '../../auth/client-request/client-request.js';
import { DPOP_ALGS, DpopProofs } from '../../auth/dpop/dpop-proofs.js';
import { allowedAlgs, profileOf } from '../../domain/security-profile/rules.js';
import { NativeFlow } from './native-flow.js';

/**
 * Draft §4.1: the client authenticates as at the token endpoint (public native apps by
 * `client_id`); credentials and answers only in the body, never in a URL that gets logged.
 */
const NATIVE_ENDPOINT: ClientEndpoint = {
  name: 'native/authorize',
  bodyOnly: ['username', 'password', 'otp', 'auth_session', 'client_secret', 'client_assertion', 'client_assertion_type'],
  allowPublic: true,
  browser: false,
};

/**
 * The authorization challenge endpoint (OAuth 2.0 for First-Party Applications §4.1): a
 * first-party native app signs its user in without a browser and gets an authorization code.
 */
@Controller(':tenant')
export class NativeController {
  constructor(
    @Inject(ClientRequests) private readonly requests: ClientRequests,
    @Inject(DpopProofs) private readonly dpop: DpopProofs,
    @Inject(NativeFlow) private readonly flow: NativeFlow,
  ) {}

  @Post('native/authorize')
  async authorize(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { tenant, client, params, origin } = await this.requests.open(NATIVE_ENDPOINT, tenantId, req, reply);
    // Draft §9.5.1: a proof here binds the code (and the auth_session) to its key; checked as at the token endpoint.
    const proof = await this.dpop.check(req, { tenantId, at: 'token', nonceRequired: tenant.dpopNonceRequired === true, origin, algs: allowedAlgs(profileOf(tenant), DPOP_ALGS) });
    const answer = await this.flow.authorize(tenant, client, params, proof?.jkt, origin);
    reply.status(answer.status).header('cache-control', 'no-store');
    if (answer.retryAfter !== undefined) reply.header('retry-after', String(answer.retryAfter));
    await reply.send(answer.body);
    answer.afterAnswer?.();
  }
}
