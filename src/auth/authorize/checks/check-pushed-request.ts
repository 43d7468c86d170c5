import { repeatedParameter } from '../../params.js';
import { type Check, trustRedirect } from './check.js';

/**
 * RFC 9126 §4: a request by reference to a pushed one. Only `client_id` is read beside
 * `request_uri` (the pushed request is the whole request); the request_uri is spent here, once,
 * and only by the client it was issued to. The pushed request's redirect URI was checked when
 * it was pushed: errors go back to it from now on.
 */
export const checkPushedRequest: Check = async (ctx, services) => {
  const pushed = await services.pushed.take(ctx.tenantId, ctx.client!.clientId, ctx.params.request_uri!, ctx.origin);
  Object.assign(ctx.request, pushed);
  trustRedirect(ctx, services, { redirectUri: pushed.redirectUri, responseMode: pushed.responseMode, state: pushed.state });
};

/** RFC 6749 §3.1, for the two parameters a request by reference has. */
export const checkReferenceRepeats: Check = ({ repeated }) => {
  const twice = repeated.find((name) => name === 'client_id' || name === 'request_uri');
  if (twice) throw repeatedParameter(twice);
};
