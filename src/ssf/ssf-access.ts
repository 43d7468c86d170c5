import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { SSF_SCOPE } from '../auth/scopes.js';
import { AdminTokens } from '../central/auth/admin-tokens.js';
import { clientTokenWithScope } from '../central/auth/client-token.js';

/**
 * Who may manage and poll streams: a receiver, that is a client's own token (client_credentials)
 * issued by the tenant, with the scope `ssf:manage` (SSF 1.0 §7.1.1 `authorization_schemes`:
 * OAuth 2.0). Returns the receiver's client_id: it owns the streams it creates, and sees no other.
 */
@Injectable()
export class SsfAccess {
  constructor(@Inject(AdminTokens) private readonly tokens: AdminTokens) {}

  receiver(req: FastifyRequest, tenantId: string): Promise<string> {
    return clientTokenWithScope(this.tokens, req, tenantId, SSF_SCOPE);
  }
}
