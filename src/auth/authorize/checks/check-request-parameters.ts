import { RegistrationNotSupported, RequestNotSupported } from '../../oauth-errors.js';
import type { Check } from './check.js';

/**
 * OpenID Connect Core §6 and §7.2.1: `request` and `registration` are refused with their own
 * error codes where they are not supported. (A `request_uri` is a pushed request's: see
 * check-pushed-request and check-no-request-uri.)
 */
export const checkRequestParameters: Check = ({ params }) => {
  if (params.request !== undefined) throw new RequestNotSupported('request objects are not supported');
  if (params.registration !== undefined) throw new RegistrationNotSupported('the registration parameter is not supported');
};
