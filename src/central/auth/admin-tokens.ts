import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { authorizationOf } from '../../auth/form-request.js';
import { carries } from '../../auth/params.js';
import { RoleScopes } from '../../auth/roles/role-scopes.js';
import { TokenInspector } from '../../auth/tokens/token-inspector.js';
import { CONFIG, type Config } from '../../config.js';
import { decodeJwt } from '../../infrastructure/crypto/jws.js';
import { Directory } from '../../shared/directory.js';
import { Problem, problems } from '../http/problem.js';
import type { AdminPrincipal } from './admin-principal.js';
import { DpopProofs } from '../../auth/dpop/dpop-proofs.js';
import { presentedToken, requireBinding } from '../../auth/dpop/token-binding.js';
import { DpopChallenge, UseDpopNonce } from '../../auth/oauth-errors.js';
import { originOf } from '../../shared/request-origin.js';


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
    @Inject(DpopProofs) private readonly dpop: DpopProofs,
    @Inject(CONFIG) config: Config,
  ) {
    this.issuerPrefix = `${config.publicUrl}/`;
  }

  async principal(req: FastifyRequest): Promise<AdminPrincipal> {
    const header = authorizationOf(req, (d) => problems.invalidRequest(d) as never);
    const presented = presentedToken(header);
    const token = presented?.token;
    if (!presented || !token) {
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
    // RFC 9449 §7: a DPoP-bound token only with a proof of its key, here as anywhere.
    try {
      await requireBinding(this.dpop, req, tenant, presented, found.token.jkt, originOf(req));
    } catch (e) {
      throw dpopProblem(e);
    }
    const { sub, clientId, userId } = found.token;
    // A user's token keeps an admin scope only while the user still holds it through a role:
    // taking the role away ends its use at once, not when the token expires.
    const scopes = userId ? await this.roleScopes.forUser(tenant.tenantId, userId, found.token.scope) : found.token.scope;
    return { tenantId: tenant.tenantId, operator: tenant.operator === true, sub, clientId, ...(userId ? { userId } : {}), scopes };
  }
}

/** A DPoP refusal (RFC 9449 §7.1, §9) as the admin API's problem, with the same challenge and nonce. */
function dpopProblem(e: unknown): unknown {
  if (!(e instanceof DpopChallenge || e instanceof UseDpopNonce)) return e;
  const headers: Record<string, string> = { 'www-authenticate': `DPoP error="${e.code}", error_description="${e.description ?? ''}", algs="${(e.algs ?? []).join(' ')}"` };
  if (e instanceof UseDpopNonce) headers['dpop-nonce'] = e.nonce;
  return new Problem(401, 'Unauthorized', e.description, { error: e.code }, headers);
}
