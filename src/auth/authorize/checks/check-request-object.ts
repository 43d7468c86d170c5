import { profileOf } from '../../../domain/security-profile/rules.js';
import { InvalidRequest } from '../../oauth-errors.js';
import { repeatedParameter } from '../../params.js';
import type { Check } from './check.js';

/**
 * RFC 9101: a request object by value (`request`), verified as the client's, stands for the
 * whole request: from here on only its parameters are read (§6.3).
 */
export const checkRequestObject: Check = async (ctx, { requestObjects }) => {
  const jwt = ctx.params.request;
  if (jwt === undefined) return;
  if (ctx.repeated.includes('request')) throw repeatedParameter('request');
  ctx.params = await requestObjects.parameters(ctx.tenantId, ctx.client!, jwt);
  ctx.repeated = [];
  ctx.signed = true;
};

/**
 * RFC 9101 §10.5: a client registered with `require_signed_request_object`, or any client of a
 * tenant whose profile signs messages (FAPI 2.0 Message Signing), sends its requests only as request objects.
 */
export const checkSignedRequired: Check = ({ tenant, client, signed }) => {
  if ((client!.requireSignedRequestObject || profileOf(tenant).requireSignedRequests) && !signed) throw new InvalidRequest('this client must send its authorization request as a signed request object (request)');
};
