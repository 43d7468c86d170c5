import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { TenantView } from '../../projections/tenants.projection.js';
import { authorizationOf } from '../auth/form-request.js';
import { BearerRequired, InvalidBearerRequest, InvalidToken } from '../auth/oauth-errors.js';
import { carries } from '../auth/params.js';
import { BrowserSessions } from '../auth/sessions/browser-session.js';
import { TokenInspector } from '../auth/tokens/token-inspector.js';

/** RFC 6750 §2.1: `Bearer` 1*SP b64token. */
const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** Who calls an edge route: the subject, the client, the user when one signed in, and what the credential is good for. */
export interface EdgeCaller {
  sub: string;
  /** The token's client; none for the edge session cookie. */
  clientId?: string;
  userId?: string;
  scopes: readonly string[];
  /** The token's audiences; none for the edge session cookie, which is no token for any resource. */
  audience?: readonly string[];
  /** The presented access token, for a resource that forwards it. */
  token?: string;
  via: 'bearer' | 'cookie';
}

/**
 * Authenticates edge requests as userinfo and the admin API do: an access token of the tenant
 * from the Authorization header only (RFC 6750 §2), verified and checked for revocation by
 * TokenInspector (which waits for the views to pass the log's head first, rule 4); or, where
 * the route allows it, the tenant's browser session cookie.
 */
@Injectable()
export class EdgeCallers {
  constructor(
    @Inject(TokenInspector) private readonly inspector: TokenInspector,
    @Inject(BrowserSessions) private readonly sessions: BrowserSessions,
  ) {}

  /** The caller, or an OAuth error with its RFC 6750 challenge (none: BearerRequired). */
  async of(tenant: TenantView, req: FastifyRequest, options: { cookie: boolean }): Promise<EdgeCaller> {
    const header = authorizationOf(req, (d) => new InvalidBearerRequest(d));
    // RFC 6750 §2: a token in the query is never used (alone, it counts as none); beside the header it makes the request malformed.
    if (header !== undefined && carries(req.query, 'access_token')) throw new InvalidBearerRequest('send the access token in the Authorization header only');
    if (header === undefined) {
      if (options.cookie && req.headers.cookie) {
        const session = await this.sessions.current(tenant, req.headers.cookie);
        if (session && !session.revoked) return { sub: session.userId, userId: session.userId, scopes: [], via: 'cookie' };
      }
      throw new BearerRequired('an access token is required in the Authorization header');
    }
    const token = BEARER_CREDENTIALS.exec(header)?.[1];
    if (!token) {
      if (/^bearer(?:\s|$)/i.test(header)) throw new InvalidBearerRequest('the Authorization header must be Bearer, one or more spaces, and the token');
      throw new BearerRequired('an access token is required in the Authorization header');
    }
    const found = await this.inspector.inspect(tenant.tenantId, token, 'access_token', 'any');
    if (!found?.active || found.token.kind !== 'access_token') throw new InvalidToken('the access token is invalid, expired or revoked');
    const t = found.token;
    return { sub: t.sub, clientId: t.clientId, ...(t.userId ? { userId: t.userId } : {}), scopes: t.scope, audience: t.audience, token, via: 'bearer' };
  }
}
