import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { FEED_SCOPE } from '../auth/scopes.js';
import { AdminTokens } from '../central/auth/admin-tokens.js';
import { clientTokenWithScope } from '../central/auth/client-token.js';

/** Who may read a tenant's feed: a client's own token (client_credentials) issued by that tenant, with the scope `events:read`. */
@Injectable()
export class FeedAccess {
  constructor(@Inject(AdminTokens) private readonly tokens: AdminTokens) {}

  async check(req: FastifyRequest, tenantId: string): Promise<void> {
    await clientTokenWithScope(this.tokens, req, tenantId, FEED_SCOPE);
  }
}
