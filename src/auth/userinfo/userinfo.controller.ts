import { Controller, Get, Header, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Directory } from '../../shared/directory.js';
import { requireClientOrigin } from '../cors.js';
import { authorizationOf } from '../form-request.js';
import { BearerRequired, InsufficientScope, InvalidBearerRequest, InvalidToken } from '../oauth-errors.js';
import { carries } from '../params.js';
import { TenantScopes } from '../tenant-scopes.js';
import { TokenInspector } from '../tokens/token-inspector.js';
import { DpopProofs } from '../dpop/dpop-proofs.js';
import { dpopRefusal, presentedToken, requireBinding } from '../dpop/token-binding.js';
import { originOf } from '../../shared/request-origin.js';


/**
 * OpenID Connect Core §5.3 userinfo. The access token is taken from the Authorization
 * header only (RFC 6750 §2.1); a token in the query or the body counts as no token, and
 * beside the header makes the request invalid.
 */
@Controller(':tenant')
export class UserinfoController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(TokenInspector) private readonly inspector: TokenInspector,
    @Inject(TenantScopes) private readonly scopes: TenantScopes,
    @Inject(DpopProofs) private readonly dpop: DpopProofs,
  ) {}

  @Get(['userinfo', 'oauth/userinfo'])
  @Header('cache-control', 'no-store')
  get(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<Record<string, unknown>> {
    return this.userinfo(tenantId, req, reply);
  }

  @Post(['userinfo', 'oauth/userinfo'])
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  post(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<Record<string, unknown>> {
    return this.userinfo(tenantId, req, reply);
  }

  private async userinfo(tenantId: string, req: FastifyRequest, reply: FastifyReply): Promise<Record<string, unknown>> {
    const tenant = await this.directory.requireTenant(tenantId);
    const header = authorizationOf(req, (d) => new InvalidBearerRequest(d));
    const presented = presentedToken(header);
    if (!presented) {
      // No header, or another scheme, is no attempt at a bearer token (RFC 6750 §3.1: no error
      // code); a Bearer header that is not `Bearer` 1*SP b64token (§2.1) is a malformed one.
      if (header && /^bearer(?:\s|$)/i.test(header)) throw new InvalidBearerRequest('the Authorization header must be Bearer, one or more spaces, and the token');
      throw new BearerRequired('an access token is required in the Authorization header');
    }
    // RFC 6750 §2: one way per request. A token in the query or the body is never used, but
    // sent beside the header it makes the request malformed (§3.1).
    if (carries(req.query, 'access_token') || carries(req.body, 'access_token')) throw new InvalidBearerRequest('send the access token in the Authorization header only');
    const found = await this.inspector.inspect(tenantId, presented.token, 'access_token');
    if (!found?.active || found.token.kind !== 'access_token') {
      throw presented.scheme === 'DPoP' ? dpopRefusal('invalid_token', 'the access token is invalid, expired or revoked') : new InvalidToken('the access token is invalid, expired or revoked');
    }
    await requireBinding(this.dpop, req, tenant, presented, found.token.jkt, originOf(req));
    const { scope, userId, clientId } = found.token;
    if (req.headers.origin !== undefined) {
      const client = await this.directory.client(tenantId, clientId);
      if (!client) throw new InvalidToken('the client of the access token no longer exists');
      requireClientOrigin(req, reply, client, false);
    }
    // A client's own token (client_credentials) has no user, and never the openid scope.
    if (!userId || !scope.includes('openid')) throw new InsufficientScope('the access token lacks the openid scope');
    const user = await this.directory.user(tenantId, userId);
    if (!user) throw new InvalidToken('the user no longer exists');
    const available: Record<string, unknown> = { ...user.claims, sub: user.userId, preferred_username: user.username, updated_at: Math.floor(Date.parse(user.updatedAt) / 1000) };
    const claims: Record<string, unknown> = {};
    for (const name of await this.scopes.claims(tenantId, scope)) if (available[name] !== undefined) claims[name] = available[name];
    return claims;
  }
}
