import { redirectUriMatches } from '../../../domain/client/redirect-uri.js';
import { InvalidRequest } from '../../oauth-errors.js';
import { MAX_STATE_LENGTH, scopeList } from '../../params.js';
import { type Check, trustRedirect } from './check.js';
import { RESPONSE_MODES } from './check-response-mode.js';

/**
 * RFC 6749 §3.1.2.3 lets a client with one registered redirect URI leave it out; OpenID
 * Connect Core §3.1.2.1 does not, for a request whose scope names openid. The URI must match
 * a registered one exactly (RFC 9700 §4.1.3). Once it does, it is trusted: every later error
 * goes back to it (RFC 6749 §4.1.2.1), and this is the one place that says so.
 */
export const checkRedirectUri: Check = (ctx, services) => {
  const { params, client } = ctx;
  if (params.redirect_uri === undefined && scopeList(params.scope)?.includes('openid')) {
    throw new InvalidRequest('redirect_uri is required in an OpenID Connect request');
  }
  const registered = client!.redirectUris;
  const redirectUri = params.redirect_uri ?? (registered.length === 1 ? registered[0] : undefined);
  if (!redirectUri) throw new InvalidRequest('redirect_uri is required');
  if (!redirectUriMatches(registered, redirectUri)) throw new InvalidRequest('redirect_uri is not registered for this client');
  ctx.request.redirectUri = redirectUri;
  if (params.redirect_uri === undefined) ctx.request.redirectUriOmitted = true;
  // A `state` too long to take is not sent back either (the answer would be a URL that long).
  const state = (params.state?.length ?? 0) <= MAX_STATE_LENGTH && !ctx.repeated.includes('state') ? params.state : undefined;
  const responseMode = RESPONSE_MODES[params.response_mode ?? 'query'] ?? 'query';
  trustRedirect(ctx, services, { redirectUri, responseMode, state });
};
