import { Inject, Injectable } from '@nestjs/common';
import type { ClientView } from '../../../projections/clients.projection.js';
import { constantTimeEqual, sha256 } from '../../infrastructure/crypto/hashing.js';
import { Directory } from '../../shared/directory.js';
import { InvalidClient, InvalidRequest } from '../oauth-errors.js';
import type { Params } from '../params.js';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

interface Presented {
  method: ClientAuthMethod;
  clientId: string;
  secret?: string;
}

/** RFC 6749 §2.3.1: Basic credentials, each form-urlencoded before base64. */
function fromBasic(credentials: string): Presented {
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new InvalidClient('malformed Basic credentials');
  try {
    return { method: 'client_secret_basic', clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')), secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')) };
  } catch {
    throw new InvalidClient('malformed Basic credentials');
  }
}

/** Which method the request used; more than one is an error (RFC 6749 §2.3). */
export function presentedCredentials(authorization: string | undefined, params: Params): Presented {
  if (authorization?.trim()) {
    // Only Basic is accepted in the Authorization header; any other use of it is invalid_client.
    const [, scheme, credentials] = /^(\S+)\s*(.*)$/s.exec(authorization.trim())!;
    if (scheme.toLowerCase() !== 'basic') throw new InvalidClient('the Authorization header accepts only Basic client credentials');
    if (!credentials) throw new InvalidClient('malformed Basic credentials');
    if (params.client_secret !== undefined) throw new InvalidRequest('use only one client authentication method');
    const p = fromBasic(credentials);
    if (params.client_id !== undefined && params.client_id !== p.clientId) throw new InvalidRequest('client_id does not match the Basic credentials');
    return p;
  }
  if (params.client_assertion !== undefined) throw new InvalidClient('client assertions are not supported');
  if (params.client_id === undefined) throw new InvalidClient('client authentication is required');
  if (params.client_secret !== undefined) return { method: 'client_secret_post', clientId: params.client_id, secret: params.client_secret };
  return { method: 'none', clientId: params.client_id };
}

/**
 * Authenticates the client at the token, introspection and revocation endpoints with the
 * method it registered. Secrets are compared as SHA-256 hashes in constant time.
 */
@Injectable()
export class ClientAuthenticator {
  constructor(@Inject(Directory) private readonly directory: Directory) {}

  async authenticate(tenantId: string, authorization: string | undefined, params: Params, options: { allowPublic: boolean }): Promise<ClientView> {
    const presented = presentedCredentials(authorization, params);
    const client = await this.directory.client(tenantId, presented.clientId);
    const fail = (why: string): never => {
      throw new InvalidClient(why);
    };
    if (!client) return fail('client authentication failed');
    if (client.tokenEndpointAuthMethod !== presented.method) return fail('client authentication failed');
    if (presented.method === 'none') {
      if (!options.allowPublic) return fail('this endpoint requires client authentication');
      return client;
    }
    if (!client.secretHash || !constantTimeEqual(sha256(presented.secret ?? ''), client.secretHash)) return fail('client authentication failed');
    return client;
  }
}
