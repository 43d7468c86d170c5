import type { FastifyRequest } from 'fastify';
import { BearerRequired, InsufficientScope, InvalidBearerRequest, InvalidToken } from '../../auth/oauth-errors.js';
import { Problem } from '../http/problem.js';
import type { AdminPrincipal } from './admin-principal.js';
import type { AdminTokens } from './admin-tokens.js';

/**
 * A client's own token (client_credentials) issued by `tenantId` with `scope`, verified as the
 * admin API verifies its own (signature, expiry, revocation), for the routes services call (the
 * event feed, Shared Signals streams); its errors are told as RFC 6750 says, not as problems.
 * Returns the client's id. Another tenant's token (the operator's too) and a user's get nothing.
 */
export async function clientTokenWithScope(tokens: AdminTokens, req: FastifyRequest, tenantId: string, scope: string): Promise<string> {
  let principal: AdminPrincipal;
  try {
    principal = await tokens.principal(req);
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    if (error.status === 400) throw new InvalidBearerRequest(error.detail);
    if (error.status === 401 && error.extensions.error === undefined) throw new BearerRequired();
    throw new InvalidToken(error.detail);
  }
  if (principal.tenantId !== tenantId || principal.userId !== undefined) throw new InvalidToken('the access token is not a client token of this tenant');
  if (!principal.scopes.includes(scope)) throw new InsufficientScope(`the access token lacks the scope ${scope}`);
  return principal.clientId;
}
