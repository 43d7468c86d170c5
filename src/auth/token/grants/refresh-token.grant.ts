import { Inject, Injectable } from '@nestjs/common';
import { grantAmr, grantAuthTime, REFRESH_REFUSAL } from '../../../domain/session/session.decider.js';
import { type SessionView, sessionKey } from '../../../../projections/sessions.projection.js';
import { READ_STORE, type ReadStore } from '../../../infrastructure/read-store/read-store.port.js';
import { AMR_PWD } from '../../../domain/challenge/acr.js';
import { defaultResponseAlg, profileOf } from '../../../domain/security-profile/rules.js';
import type { SigningAlg } from '../../../domain/tenant/tenant.events.js';
import { Directory } from '../../../shared/directory.js';
import { InvalidGrant } from '../../oauth-errors.js';
import { required, requestedScope } from '../../params.js';
import { artefactHash, mintArtefact, SessionCommands, sessionOf } from '../../sessions/session-commands.js';
import { tokenTarget } from '../../resources/resource-indicator.js';
import { TokenIssuer } from '../../tokens/token-issuer.js';
import { type Grant, type GrantRequest, newUserAccessToken, type TokenResponse } from '../grant.js';

/**
 * RFC 6749 §6 with rotation on every use (OAuth 2.1 §4.3.1), unless the tenant's profile keeps
 * refresh tokens (FAPI 2.0): then the response carries none and the presented one stays in use. An already-rotated token from
 * its own authenticated client revokes the whole session; of concurrent uses exactly one
 * wins, because each rotation is appended with the session's expected revision.
 */
@Injectable()
export class RefreshTokenGrant implements Grant {
  readonly grantType = 'refresh_token';

  constructor(
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(TokenIssuer) private readonly tokens: TokenIssuer,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  async handle(request: GrantRequest): Promise<TokenResponse> {
    const { tenant, client, params, now } = request;
    const presented = required(params, 'refresh_token');
    const sessionId = sessionOf(presented);
    if (!sessionId) throw new InvalidGrant('unknown refresh token');
    await this.requireActiveUser(tenant.tenantId, sessionId);
    // RFC 8707 §2.2: the resource the token is for, the grant's own or (for a grant made without one) any of the tenant's.
    const target = await tokenTarget(this.directory, tenant.tenantId, params.resource);
    const keys = await this.tokens.responseKeys(tenant, client.idTokenSignedResponseAlg ?? (defaultResponseAlg(tenant) as SigningAlg));
    const access = newUserAccessToken(request, keys);
    const next = mintArtefact(sessionId);
    const keep = !profileOf(tenant).rotateRefreshTokens;
    const { alongside: response, events } = await this.sessions.run(
      tenant.tenantId,
      sessionId,
      {
        kind: 'RotateRefresh',
        refreshHash: artefactHash(presented),
        clientId: client.clientId,
        scope: requestedScope(params),
        now,
        access,
        refresh: { hash: next.hash, expiresAt: now + tenant.refreshTokenTtl },
        ...(request.jkt ? { jkt: request.jkt } : {}),
        ...(keep ? { keep: true as const } : {}),
        ...(target ? { target } : {}),
      },
      `client:${client.clientId}`,
      {
        origin: request.origin,
        // Signed while the rotation is being made durable.
        alongside: (events, state) => {
          const issued = events.find((e) => e.type === 'AccessTokenIssued');
          if (!issued) return undefined;
          // OpenID Connect Core §12.2: the refreshed ID token says what the grant's sign-in said, not what the session did since.
          const { grantId } = issued.data;
          return this.tokens.userTokenResponse(tenant, { ...issued.data, sessionId }, keys, {
            authTime: grantAuthTime(state, grantId),
            amr: grantAmr(state, grantId) ?? AMR_PWD,
            ...(keep ? {} : { refreshToken: next.value }),
          });
        },
      },
    );
    if (response) return response;
    // Refused (and recorded) when another client presented it; otherwise a replay ended the
    // session, or only the grant when the grant had outlived its session (an offline grant).
    if (events.some((e) => e.type === 'RefreshRefused')) throw new InvalidGrant(REFRESH_REFUSAL);
    throw new InvalidGrant(`the refresh token was already used; ${events.some((e) => e.type === 'GrantRevoked') ? 'its grant' : 'the session'} is revoked`);
  }

  /**
   * A disabled or deleted user's refresh tokens are refused before anything rotates: their
   * sessions are ended too, but a grant kept past its session's end must not outlive the user.
   * The session's user comes from its view, or from its stream while the view lags.
   */
  private async requireActiveUser(tenantId: string, sessionId: string): Promise<void> {
    const viewed = await this.reads.get<SessionView>('sessions', sessionKey(tenantId, sessionId));
    const userId = viewed?.userId ?? (await this.sessions.load(tenantId, sessionId)).userId;
    if (userId && !(await this.directory.activeUser(tenantId, userId))) throw new InvalidGrant('the user of this refresh token is disabled or deleted');
  }
}
