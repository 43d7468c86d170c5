import { profileOf } from '../../../domain/security-profile/rules.js';
import { InvalidRequest } from '../../oauth-errors.js';
import type { Check } from './check.js';

/**
 * RFC 9126 §5 (the tenant's setting or its security profile) and §6 (the client's metadata): only requests pushed to
 * `/par` are taken, by their `request_uri`.
 */
export const checkParRequired: Check = ({ tenant, client }) => {
  if (tenant.requirePushedAuthorizationRequests || client!.requirePushedAuthorizationRequests || profileOf(tenant).requirePushedRequests) {
    throw new InvalidRequest('this client must push its authorization requests (pushed_authorization_request_endpoint) and send only client_id and request_uri here');
  }
};
