import { Controller, Header, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Directory } from '../../shared/directory.js';
import { ClientAuthenticator } from '../client-auth/client-authenticator.js';
import { authorizationOf, formParams } from '../form-request.js';
import { required } from '../params.js';
import { type TokenHint, TokenInspector } from '../tokens/token-inspector.js';
import { originOf } from '../../shared/request-origin.js';

/** RFC 7662 token introspection, for authenticated clients of the tenant. */
@Controller(':tenant')
export class IntrospectController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(ClientAuthenticator) private readonly clients: ClientAuthenticator,
    @Inject(TokenInspector) private readonly inspector: TokenInspector,
  ) {}

  @Post('introspect')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  async introspect(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<Record<string, unknown>> {
    await this.directory.requireTenant(tenantId);
    const params = formParams(req);
    const caller = await this.clients.authenticate(tenantId, authorizationOf(req), params, { allowPublic: false, endpoint: 'introspect', origin: originOf(req) });
    const token = required(params, 'token');
    const found = await this.inspector.inspect(tenantId, token, params.token_type_hint as TokenHint | undefined);
    if (!found?.active) return { active: false };
    const t = found.token;
    // RFC 7662 §4: a refresh token concerns only the client it was issued to (a resource
    // server never holds one), so another client learns nothing of it, not even that it lives.
    if (t.kind === 'refresh_token' && t.clientId !== caller.clientId) return { active: false };
    const user = t.userId ? await this.directory.user(tenantId, t.userId) : null;
    return {
      active: true,
      ...(t.scope.length ? { scope: t.scope.join(' ') } : {}),
      client_id: t.clientId,
      ...(user ? { username: user.username } : {}),
      token_type: t.kind === 'access_token' ? 'Bearer' : 'refresh_token',
      exp: t.expiresAt,
      iat: t.issuedAt,
      nbf: t.issuedAt,
      sub: t.sub,
      ...(t.audience ? { aud: t.audience.length === 1 ? t.audience[0] : t.audience } : {}),
      iss: this.directory.issuer(tenantId),
      ...(t.jti ? { jti: t.jti } : {}),
      ...(t.sessionId ? { sid: t.sessionId } : {}),
    };
  }
}
