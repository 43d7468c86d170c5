import { InvalidRequest } from '../../oauth-errors.js';
import type { Check } from './check.js';

/** RFC 9126 §2.1: a pushed request MUST NOT carry `request_uri`. */
export const checkNoRequestUri: Check = ({ params }) => {
  if (params.request_uri !== undefined) throw new InvalidRequest('request_uri is not allowed in a pushed authorization request');
};
