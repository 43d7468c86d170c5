import { Inject, Injectable } from '@nestjs/common';
import { findCode, REFUSAL, type RefreshRule } from '../../../domain/session/session.decider.js';
import { defaultResponseAlg } from '../../../domain/security-profile/rules.js';
import type { SigningAlg } from '../../../domain/tenant/tenant.events.js';
import type { ClientView } from '../../../../projections/clients.projection.js';
import type { TenantView } from '../../../../projections/tenants.projection.js';
import { InvalidGrant, InvalidRequest } from '../../oauth-errors.js';
import { required } from '../../params.js';
import { artefactHash, mintArtefact, SessionCommands, sessionOf } from '../../sessions/session-commands.js';
import { Directory } from '../../../shared/directory.js';
import { tokenTarget } from '../../resources/resource-indicator.js';
import { TokenIssuer } from '../../tokens/token-issuer.js';
import { AMR_PWD } from '../../../domain/challenge/acr.js';
import { type Grant, type GrantRequest, newUserAccessToken, type TokenResponse } from '../grant.js';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** Whether (and on what condition) this client's grants earn a refresh token; see docs/protocol.md, "Refresh tokens". */
export function refreshRule(tenant: TenantView, client: ClientView): RefreshRule {
  if (!client.grantTypes.includes('refresh_token')) return 'never';
  return tenant.refreshWithoutOfflineAccess ? 'always' : 'offline_access';
}

/** RFC 6749 §4.1.3 with mandatory PKCE; single use, decided on the session's stream. */
@Injectable()
export class AuthorizationCodeGrant implements Grant {
  readonly grantType = 'authorization_code';

  constructor(
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(TokenIssuer) private readonly tokens: TokenIssuer,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  async handle(request: GrantRequest): Promise<TokenResponse> {
    const { tenant, client, params, now } = request;
    const code = required(params, 'code');
    const redirectUri = params.redirect_uri;
    const verifier = required(params, 'code_verifier');
    if (!CODE_VERIFIER.test(verifier)) throw new InvalidRequest('code_verifier must be 43 to 128 unreserved characters');
    const sessionId = sessionOf(code);
    if (!sessionId) throw new InvalidGrant('unknown authorization code');
    const codeHash = artefactHash(code);
    // RFC 8707 §2.2: the resource the token is for; the code decides whether it may be.
    const target = await tokenTarget(this.directory, tenant.tenantId, params.resource);
    const keys = await this.tokens.responseKeys(tenant, client.idTokenSignedResponseAlg ?? (defaultResponseAlg(tenant) as SigningAlg));
    const access = newUserAccessToken(request, keys);
    const refresh = mintArtefact(sessionId);
    const { alongside: response, events } = await this.sessions.run(
      tenant.tenantId,
      sessionId,
      {
        kind: 'RedeemCode',
        codeHash,
        clientId: client.clientId,
        redirectUri,
        codeVerifier: verifier,
        now,
        access,
        refresh: { hash: refresh.hash, expiresAt: now + tenant.refreshTokenTtl },
        refreshRule: refreshRule(tenant, client),
        // RFC 9449 §5: a public client's refresh tokens are bound to its DPoP key (a confidential one's to the client already).
        ...(request.jkt && client.tokenEndpointAuthMethod === 'none' ? { refreshJkt: request.jkt } : {}),
        ...(target ? { target } : {}),
      },
      `client:${client.clientId}`,
      {
        origin: request.origin,
        // Signed while the redemption is being made durable.
        alongside: (events, state) => {
          const token = events.find((e) => e.type === 'AccessTokenIssued');
          if (!token) return undefined;
          const issued = findCode(state, codeHash)!;
          return this.tokens.userTokenResponse(tenant, { ...token.data, sessionId }, keys, {
            authTime: issued.authTime,
            nonce: issued.nonce,
            amr: issued.amr ?? AMR_PWD,
            refreshToken: events.some((e) => e.type === 'RefreshTokenIssued') ? refresh.value : undefined,
          });
        },
      },
    );
    if (response) return response;
    const refused = events.find((e) => e.type === 'CodeRefused');
    throw new InvalidGrant(refused ? REFUSAL[refused.data.reason] : 'the code was already used; the tokens it produced are revoked');
  }
}
