import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { authorizationOf } from '../../auth/form-request.js';
import { carries } from '../../auth/params.js';
import { RoleScopes } from '../../auth/roles/role-scopes.js';
import { TokenInspector } from '../../auth/tokens/token-inspector.js';
import { CONFIG, type Config } from '../../config.js';
import { decodeJwt } from '../../infrastructure/crypto/jws.js';
import { Directory } from '../../shared/directory.js';
import { problems } from '../http/problem.js';
import type { AdminPrincipal } from './admin-principal.js';

/** RFC 6750 §2.1: `Bearer` 1*SP b64token. */
const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * Turns the bearer token of an admin request into its principal. The token is an access token
 * of this server, of any tenant (its `iss` names which; the operator's act on every tenant),
 * verified and checked for revocation as introspection does; taken from the Authorization
 * header only (RFC 6750 §2: one in the query or body alone counts as none, and beside the
 * header makes the request invalid).
 */
@Injectable()
export class AdminTokens {
  private readonly issuerPrefix: string;

  constructor(
    @Inject(TokenInspector) private readonly inspector: TokenInspector,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(RoleScopes) private readonly roleScopes: RoleScopes,
    @Inject(CONFIG) config: Config,
  ) {
    this.issuerPrefix = `${config.publicUrl}/`;
  }

  async principal(req: FastifyRequest): Promise<AdminPrincipal> {
    const header = authorizationOf(req, (d) => problems.invalidRequest(d) as never);
    const token = header && BEARER_CREDENTIALS.exec(header)?.[1];
    if (!token) {
      if (header && /^bearer(?:\s|$)/i.test(header)) throw problems.invalidRequest('the Authorization header must be Bearer, one or more spaces, and the token');
      throw problems.tokenRequired();
    }
    if (carries(req.query, 'access_token')) throw problems.invalidRequest('send the access token in the Authorization header only');
    const iss = decodeJwt(token)?.payload.iss;
    const tenantId = typeof iss === 'string' && iss.startsWith(this.issuerPrefix) ? iss.slice(this.issuerPrefix.length) : undefined;
    const tenant = tenantId && !tenantId.includes('/') ? await this.directory.tenant(tenantId) : null;
    if (!tenant) throw problems.invalidToken('the access token is invalid, expired or revoked');
    const found = await this.inspector.inspect(tenant.tenantId, token, 'access_token');
    if (!found?.active || found.token.kind !== 'access_token') throw problems.invalidToken('the access token is invalid, expired or revoked');
    const { sub, clientId, userId } = found.token;
    // A user's token keeps an admin scope only while the user still holds it through a role:
    // taking the role away ends its use at once, not when the token expires.
    const scopes = userId ? await this.roleScopes.forUser(tenant.tenantId, userId, found.token.scope) : found.token.scope;
    return { tenantId: tenant.tenantId, operator: tenant.operator === true, sub, clientId, ...(userId ? { userId } : {}), scopes };
  }
}
