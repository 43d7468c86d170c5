import { InvalidRequest, UnauthorizedClient, UnsupportedResponseType } from '../../oauth-errors.js';
import type { Check } from './check.js';

/**
 * RFC 6749 §4.1.1: `response_type` is required and is `code` here (OAuth 2.1 has no implicit
 * grant); §4.1.2.1: a client not registered for the grant is `unauthorized_client`.
 */
export const checkResponseType: Check = ({ params, client }) => {
  if (params.response_type === undefined) throw new InvalidRequest('response_type is required');
  if (params.response_type !== 'code') throw new UnsupportedResponseType('only response_type=code is supported');
  if (!client!.grantTypes.includes('authorization_code')) throw new UnauthorizedClient('the client may not use the authorization code grant');
};
