import { Inject, Injectable } from '@nestjs/common';
import { AMR_PWD } from '../../../domain/challenge/acr.js';
import { findCode, s256 } from '../../../domain/session/session.decider.js';
import { constantTimeEqual } from '../../../infrastructure/crypto/hashing.js';
import { DeviceAuthorizations } from '../../device/device-authorizations.js';
import { AuthorizationPending, DeviceAccessDenied, ExpiredToken, SlowDown } from '../../device/device-errors.js';
import { DevicePolls } from '../../device/device-polls.js';
import { InvalidGrant } from '../../oauth-errors.js';
import { required } from '../../params.js';
import { mintArtefact, SessionCommands } from '../../sessions/session-commands.js';
import { TokenIssuer } from '../../tokens/token-issuer.js';
import { type Grant, type GrantRequest, newUserAccessToken, type TokenResponse } from '../grant.js';
import { refreshRule } from './authorization-code.grant.js';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * RFC 8628 §3.4: the device polls with its device code until the user answers. Once approved,
 * the code issued in the user's session is redeemed with the device code as its verifier, on
 * the session's stream like the code flow's, so it is single use and its tokens belong to the
 * session (logout, audit).
 */
@Injectable()
export class DeviceCodeGrant implements Grant {
  readonly grantType = DEVICE_CODE_GRANT;

  constructor(
    @Inject(DeviceAuthorizations) private readonly authorizations: DeviceAuthorizations,
    @Inject(DevicePolls) private readonly polls: DevicePolls,
    @Inject(SessionCommands) private readonly sessions: SessionCommands,
    @Inject(TokenIssuer) private readonly tokens: TokenIssuer,
  ) {}

  async handle(request: GrantRequest): Promise<TokenResponse> {
    const { tenant, client, params, now } = request;
    const deviceCode = required(params, 'device_code');
    const found = await this.authorizations.byDeviceCode(tenant.tenantId, deviceCode);
    const requested = found?.state.requested;
    // RFC 8628 §3.4: the device code must be one issued to this client.
    if (!found || !requested || requested.clientId !== client.clientId || !constantTimeEqual(s256(deviceCode), requested.codeChallenge)) {
      throw new InvalidGrant('unknown device code');
    }
    // RFC 8628 §3.5: past expires_in the device starts again, answered or not.
    if (now >= requested.expiresAt) throw new ExpiredToken('the device code has expired; start again');
    const approved = found.state.approved;
    if (!approved) {
      if (found.state.denied) throw new DeviceAccessDenied('the user denied the request');
      const paced = this.polls.poll(tenant.tenantId, found.key, now, requested.interval, requested.expiresAt);
      if (paced !== undefined) throw new SlowDown(`polled too often: wait at least ${paced} seconds between requests`);
      throw new AuthorizationPending('the user has not answered yet');
    }
    const keys = await this.tokens.responseKeys(tenant, client.idTokenSignedResponseAlg);
    const access = newUserAccessToken(request, keys);
    const refresh = mintArtefact(approved.sessionId);
    const { alongside: response } = await this.sessions.run(
      tenant.tenantId,
      approved.sessionId,
      {
        kind: 'RedeemCode',
        codeHash: approved.codeHash,
        clientId: client.clientId,
        redirectUri: undefined,
        codeVerifier: deviceCode,
        now,
        access,
        refresh: { hash: refresh.hash, expiresAt: now + tenant.refreshTokenTtl },
        refreshRule: refreshRule(tenant, client),
        ...(request.jkt && client.tokenEndpointAuthMethod === 'none' ? { refreshJkt: request.jkt } : {}),
      },
      `client:${client.clientId}`,
      {
        origin: request.origin,
        alongside: (events, state) => {
          const token = events.find((e) => e.type === 'AccessTokenIssued');
          if (!token) return undefined;
          const issued = findCode(state, approved.codeHash)!;
          return this.tokens.userTokenResponse(tenant, { ...token.data, sessionId: approved.sessionId }, keys, {
            authTime: issued.authTime,
            // The sign-in on the device page: what the user proved there.
            amr: issued.amr ?? AMR_PWD,
            refreshToken: events.some((e) => e.type === 'RefreshTokenIssued') ? refresh.value : undefined,
          });
        },
      },
    );
    if (response) return response;
    // RFC 8628 §3.5 leaves a second use to the code flow's rule: refused, and its tokens revoked.
    throw new InvalidGrant('the device code was already used; the tokens it produced are revoked');
  }
}
