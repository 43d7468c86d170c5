import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { TenantView } from '../../projections/tenants.projection.js';
import { authorizationOf } from '../auth/form-request.js';
import { BearerRequired, InvalidBearerRequest, InvalidToken } from '../auth/oauth-errors.js';
import { carries } from '../auth/params.js';
import { BrowserSessions } from '../auth/sessions/browser-session.js';
import { TokenInspector } from '../auth/tokens/token-inspector.js';
import { DpopProofs } from '../auth/dpop/dpop-proofs.js';
import { dpopRefusal, presentedToken, requireBinding } from '../auth/dpop/token-binding.js';
import { originOf } from '../shared/request-origin.js';

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
  via: 'bearer' | 'dpop' | 'cookie';
}

/**
 * Authenticates edge requests as userinfo and the admin API do: an access token of the tenant
 * from the Authorization header only (RFC 6750 §2; a DPoP-bound one with the DPoP scheme and a
 * proof of its key for this request, RFC 9449 §7), verified and checked for revocation by
 * TokenInspector (which waits for the views to pass the log's head first, rule 4); or, where
 * the route allows it, the tenant's browser session cookie.
 */
@Injectable()
export class EdgeCallers {
  constructor(
    @Inject(TokenInspector) private readonly inspector: TokenInspector,
    @Inject(BrowserSessions) private readonly sessions: BrowserSessions,
    @Inject(DpopProofs) private readonly dpop: DpopProofs,
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
    const presented = presentedToken(header);
    if (!presented) {
      if (/^(bearer|dpop)(?:\s|$)/i.test(header)) throw new InvalidBearerRequest('the Authorization header must be Bearer or DPoP, one or more spaces, and the token');
      throw new BearerRequired('an access token is required in the Authorization header');
    }
    const { token } = presented;
    const found = await this.inspector.inspect(tenant.tenantId, token, 'access_token', 'any');
    if (!found?.active || found.token.kind !== 'access_token') {
      throw presented.scheme === 'DPoP' ? dpopRefusal('invalid_token', 'the access token is invalid, expired or revoked') : new InvalidToken('the access token is invalid, expired or revoked');
    }
    const t = found.token;
    await requireBinding(this.dpop, req, tenant, presented, t.jkt, originOf(req));
    return { sub: t.sub, clientId: t.clientId, ...(t.userId ? { userId: t.userId } : {}), scopes: t.scope, audience: t.audience, token, via: presented.scheme === 'DPoP' ? 'dpop' : 'bearer' };
  }
}
