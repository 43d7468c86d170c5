import { Controller, Header, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Directory } from '../../shared/directory.js';
import { CHECKS, type CheckServices, runChecks } from '../authorize/checks/index.js';
import { Jarm } from '../authorize/jarm.js';
import { type ClientEndpoint, ClientRequests } from '../client-request/client-request.js';
import { RequestObjects } from '../request-object/request-objects.js';
import { TokenIssuer } from '../tokens/token-issuer.js';
import { PushedRequests } from './pushed-requests.js';

/** RFC 9126 §2: public clients push too, from a browser as at the token endpoint. */
const PAR_ENDPOINT: ClientEndpoint = { name: 'par', bodyOnly: [], allowPublic: true, browser: true };

/** RFC 9126 §2.2: the answer to a pushed authorization request. */
export interface PushedAuthorizationResponse {
  request_uri: string;
  expires_in: number;
}

/**
 * The pushed authorization request endpoint (RFC 9126): the client authenticates as at the
 * token endpoint (§2: public clients push too), its request passes the checks of /authorize,
 * and it gets a single-use `request_uri` to send the browser to /authorize with.
 */
@Controller(':tenant')
export class ParController {
  private readonly checkServices: CheckServices;

  constructor(
    @Inject(Directory) directory: Directory,
    @Inject(ClientRequests) private readonly requests: ClientRequests,
    @Inject(PushedRequests) private readonly pushed: PushedRequests,
    @Inject(TokenIssuer) tokens: TokenIssuer,
    @Inject(RequestObjects) requestObjects: RequestObjects,
    @Inject(Jarm) jarm: Jarm,
  ) {
    this.checkServices = { directory, tokens, pushed, requestObjects, jarm };
  }

  @Post('par')
  @HttpCode(201)
  @Header('cache-control', 'no-store')
  async push(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<PushedAuthorizationResponse> {
    const { tenant, client, params, origin } = await this.requests.open(PAR_ENDPOINT, tenantId, req, reply);
    // RFC 9126 §2.3: every error is the client's, as JSON (the request has no browser yet).
    const { request } = await runChecks(CHECKS.par, { tenantId, tenant, client, params, repeated: [], request: {}, origin }, this.checkServices);
    const { tenantId: _tenant, clientId: _client, ...content } = request;
    const { requestUri, expiresIn } = await this.pushed.push(tenantId, client.clientId, content, origin);
    return { request_uri: requestUri, expires_in: expiresIn };
  }
}
