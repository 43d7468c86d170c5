import { Controller, Header, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Directory } from '../../shared/directory.js';
import { type ClientEndpoint, ClientRequests } from '../client-request/client-request.js';
import { InvalidScope, UnauthorizedClient } from '../oauth-errors.js';
import { scopeList } from '../params.js';
import { restrictedForUsers } from '../scopes.js';
import { DEVICE_CODE_GRANT } from '../token/grants/device-code.grant.js';
import { DEVICE_CODE_TTL_SECONDS, DeviceAuthorizations, POLL_INTERVAL_SECONDS } from './device-authorizations.js';

/** RFC 8628 §3.1: authenticated as at the token endpoint; public clients (most devices) too. */
const DEVICE_ENDPOINT: ClientEndpoint = { name: 'device_authorization', bodyOnly: ['scope', 'client_id', 'client_secret', 'client_assertion', 'client_assertion_type'], allowPublic: true, browser: false };

/** RFC 8628 §3.2: the device authorization response. */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** The device authorization endpoint (RFC 8628 §3.1), for clients registered for the device grant. */
@Controller(':tenant')
export class DeviceAuthorizationController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(ClientRequests) private readonly requests: ClientRequests,
    @Inject(DeviceAuthorizations) private readonly authorizations: DeviceAuthorizations,
  ) {}

  @Post('device_authorization')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  async authorize(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<DeviceAuthorizationResponse> {
    const { client, params, origin } = await this.requests.open(DEVICE_ENDPOINT, tenantId, req, reply);
    if (!client.grantTypes.includes(DEVICE_CODE_GRANT)) throw new UnauthorizedClient(`the client is not registered for ${DEVICE_CODE_GRANT}`);
    // RFC 6749 §3.3, as at /authorize: scopes the client may not have are left out; restricted
    // (role-held) scopes are not granted to devices.
    const requested = scopeList(params.scope);
    const grantable = client.grantTypes.includes('refresh_token') ? client.scope : client.scope.filter((s) => s !== 'offline_access');
    const scope = (requested ?? grantable.filter((s) => s !== 'offline_access')).filter((s) => grantable.includes(s) && !restrictedForUsers(s));
    if (scope.length === 0) throw new InvalidScope(requested ? 'none of the requested scopes is allowed for this client' : 'the client is registered for no scope');
    const { deviceCode, userCode } = await this.authorizations.request(tenantId, client.clientId, scope, origin);
    const verificationUri = `${this.directory.issuer(tenantId)}/device`;
    return {
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${userCode}`,
      expires_in: DEVICE_CODE_TTL_SECONDS,
      interval: POLL_INTERVAL_SECONDS,
    };
  }
}
