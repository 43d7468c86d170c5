import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { BearerRequired, InsufficientScope, InvalidBearerRequest, InvalidToken } from '../auth/oauth-errors.js';
import { SSF_SCOPE } from '../auth/scopes.js';
import { AdminTokens } from '../central/auth/admin-tokens.js';
import type { AdminPrincipal } from '../central/auth/admin-principal.js';
import { Problem } from '../central/http/problem.js';

/**
 * Who may manage and poll streams: a receiver, that is a client's own token (client_credentials)
 * issued by the tenant, with the scope `ssf:manage` (SSF 1.0 §7.1.1 `authorization_schemes`:
 * OAuth 2.0). Verified as the admin API verifies its tokens; errors told as RFC 6750 says.
 * Returns the receiver's client_id: it owns the streams it creates, and sees no other.
 */
@Injectable()
export class SsfAccess {
  constructor(@Inject(AdminTokens) private readonly tokens: AdminTokens) {}

  async receiver(req: FastifyRequest, tenantId: string): Promise<string> {
    let principal: AdminPrincipal;
    try {
      principal = await this.tokens.principal(req);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      if (error.status === 400) throw new InvalidBearerRequest(error.detail);
      if (error.status === 401 && error.extensions.error === undefined) throw new BearerRequired();
      throw new InvalidToken(error.detail);
    }
    if (principal.tenantId !== tenantId || principal.userId !== undefined) throw new InvalidToken('the access token is not a client token of this tenant');
    if (!principal.scopes.includes(SSF_SCOPE)) throw new InsufficientScope(`the access token lacks the scope ${SSF_SCOPE}`);
    return principal.clientId;
  }
}
