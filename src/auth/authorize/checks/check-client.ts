import { InvalidRequest } from '../../oauth-errors.js';
import type { Check } from './check.js';

/**
 * RFC 6749 §4.1.1: `client_id` is required and names a registered client. Where the client
 * has authenticated already (PAR), a `client_id` in the request must name that client
 * (RFC 9126 §2.1).
 */
export const checkClient: Check = async (ctx, { directory }) => {
  const clientId = ctx.params.client_id;
  if (ctx.client) {
    if (clientId !== undefined && clientId !== ctx.client.clientId) throw new InvalidRequest('client_id does not name the authenticated client');
    return;
  }
  const client = clientId ? await directory.client(ctx.tenantId, clientId) : null;
  if (!client) throw new InvalidRequest(clientId ? 'unknown client_id' : 'client_id is required');
  ctx.client = client;
};
