import { Controller, Header, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Directory } from '../../shared/directory.js';
import { type ClientEndpoint, ClientRequests } from '../client-request/client-request.js';
import { required } from '../params.js';
import { type TokenHint, TokenInspector } from '../tokens/token-inspector.js';
import { mayIntrospect } from './introspection-audience.js';

/** Confidential clients only; no browser calls it (no CORS). */
const INTROSPECTION_ENDPOINT: ClientEndpoint = { name: 'introspect', bodyOnly: [], allowPublic: false, browser: false };

/** RFC 7662 token introspection, for authenticated clients of the tenant. */
@Controller(':tenant')
export class IntrospectController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(ClientRequests) private readonly requests: ClientRequests,
    @Inject(TokenInspector) private readonly inspector: TokenInspector,
  ) {}

  @Post('introspect')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  async introspect(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<Record<string, unknown>> {
    const { params, client: caller } = await this.requests.open(INTROSPECTION_ENDPOINT, tenantId, req, reply);
    const token = required(params, 'token');
    const found = await this.inspector.inspect(tenantId, token, params.token_type_hint as TokenHint | undefined, 'any');
    if (!found?.active) return { active: false };
    const t = found.token;
    // RFC 7662 §4: a refresh token concerns only the client it was issued to (a resource
    // server never holds one), so another client learns nothing of it, not even that it lives.
    if (t.kind === 'refresh_token' && t.clientId !== caller.clientId) return { active: false };
    // An access token only to its own client or its audience's resource server (see introspection-audience.ts).
    if (t.kind === 'access_token' && !(await mayIntrospect(this.directory, tenantId, caller.clientId, t))) return { active: false };
    const user = t.userId ? await this.directory.user(tenantId, t.userId) : null;
    return {
      active: true,
      ...(t.scope.length ? { scope: t.scope.join(' ') } : {}),
      client_id: t.clientId,
      ...(user ? { username: user.username } : {}),
      token_type: t.kind === 'access_token' ? (t.jkt ? 'DPoP' : 'Bearer') : 'refresh_token',
      exp: t.expiresAt,
      iat: t.issuedAt,
      nbf: t.issuedAt,
      sub: t.sub,
      ...(t.audience ? { aud: t.audience.length === 1 ? t.audience[0] : t.audience } : {}),
      iss: this.directory.issuer(tenantId),
      ...(t.jti ? { jti: t.jti } : {}),
      ...(t.sessionId ? { sid: t.sessionId } : {}),
      // RFC 9449 §6.2: the key a DPoP-bound token is bound to.
      ...(t.jkt ? { cnf: { jkt: t.jkt } } : {}),
    };
  }
}
