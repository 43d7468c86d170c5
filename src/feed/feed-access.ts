import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { BearerRequired, InsufficientScope, InvalidBearerRequest, InvalidToken } from '../auth/oauth-errors.js';
import { FEED_SCOPE } from '../auth/scopes.js';
import { AdminTokens } from '../central/auth/admin-tokens.js';
import type { AdminPrincipal } from '../central/auth/admin-principal.js';
import { Problem } from '../central/http/problem.js';

/**
 * Who may read a tenant's feed: a client's own token (client_credentials) issued by that
 * tenant, with the scope `events:read`. The token is verified as the admin API verifies its
 * own (AdminTokens: signature, expiry, revocation); its errors are told as RFC 6750 says.
 */
@Injectable()
export class FeedAccess {
  constructor(@Inject(AdminTokens) private readonly tokens: AdminTokens) {}

  async check(req: FastifyRequest, tenantId: string): Promise<void> {
    let principal: AdminPrincipal;
    try {
      principal = await this.tokens.principal(req);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      if (error.status === 400) throw new InvalidBearerRequest(error.detail);
      if (error.status === 401 && error.extensions.error === undefined) throw new BearerRequired();
      throw new InvalidToken(error.detail);
    }
    // Another tenant's token (the operator's too) reads nothing here, nor a user's.
    if (principal.tenantId !== tenantId || principal.userId !== undefined) throw new InvalidToken('the access token is not a client token of this tenant');
    if (!principal.scopes.includes(FEED_SCOPE)) throw new InsufficientScope(`the access token lacks the scope ${FEED_SCOPE}`);
  }
}
