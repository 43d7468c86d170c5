import { RegistrationNotSupported, RequestNotSupported, RequestUriNotSupported } from '../../oauth-errors.js';
import type { Check } from './check.js';

/**
 * OpenID Connect Core §6 and §7.2.1: `request`, `request_uri` and `registration` are refused
 * with their own error codes where they are not supported.
 */
export const checkRequestParameters: Check = ({ params }) => {
  if (params.request !== undefined) throw new RequestNotSupported('request objects are not supported');
  if (params.request_uri !== undefined) throw new RequestUriNotSupported('request_uri is not supported');
  if (params.registration !== undefined) throw new RegistrationNotSupported('the registration parameter is not supported');
};
