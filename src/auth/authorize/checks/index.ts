import type { ClientView } from '../../../../projections/clients.projection.js';
import { OAuthError, RedirectableError, UserFacingError } from '../../oauth-errors.js';
import { isJwtMode, transportOf } from '../jarm.js';
import type { Check, CheckContext, CheckedRequest, CheckServices } from './check.js';
import { checkAnswerRoute } from './check-answer-route.js';
import { checkClient } from './check-client.js';
import { checkDpopJkt } from './check-dpop-jkt.js';
import { checkIdTokenHint } from './check-id-token-hint.js';
import { checkLengths } from './check-lengths.js';
import { checkFirstPartyNative, checkNativeDelivery } from './check-native.js';
import { checkNoRequestUri } from './check-no-request-uri.js';
import { checkParRequired } from './check-par-required.js';
import { checkPkce } from './check-pkce.js';
import { checkPrompt } from './check-prompt.js';
// MFA: acr_values.
import { checkAcrValues } from './check-acr-values.js';
import { checkPushedRequest, checkReferenceRepeats } from './check-pushed-request.js';
import { checkRedirectUri } from './check-redirect-uri.js';
import { checkRepeated } from './check-repeated.js';
import { checkResource, checkResourceOnce } from './check-resource.js';
import { checkRegistration } from './check-registration.js';
import { checkRequestObject, checkSignedRequired } from './check-request-object.js';
import { checkResponseMode } from './check-response-mode.js';
import { checkResponseType } from './check-response-type.js';
import { checkScope } from './check-scope.js';

export type { CheckContext, CheckedRequest, CheckServices } from './check.js';

/** The rules of the request itself, once its client and redirect URI are known: the same at /authorize and /par. */
const REQUEST_RULES = [
  checkSignedRequired,
  checkResponseMode,
  checkResourceOnce,
  checkRepeated,
  checkLengths,
  checkRegistration,
  checkResponseType,
  checkPkce,
  checkScope,
  checkResource,
  checkDpopJkt,
  checkPrompt,
  checkAcrValues,
  checkIdTokenHint,
] as const;

/**
 * The checks of an authorization request, per entry point, in the order they run. Until a
 * check trusts the redirect URI (check-redirect-uri, check-pushed-request), an error at
 * /authorize is the user's (a page); after, the client's. At /par every error is the client's
 * JSON answer (RFC 9126 §2.3).
 */
export const CHECKS = {
  /** /authorize with the request's parameters. */
  authorize: [
    checkAnswerRoute,
    checkClient,
    checkRequestObject,
    checkRedirectUri,
    checkParRequired,
    ...REQUEST_RULES,
  ],
  /** /authorize with `client_id` and the `request_uri` of a pushed request (RFC 9126 §4). */
  authorizeByReference: [checkReferenceRepeats, checkClient, checkPushedRequest],
  /**
   * /par, the client authenticated (RFC 9126 §2.1): the checks of /authorize, and the rule that
   * a pushed request carries no request_uri; without check-answer-route (every error here is
   * JSON) and check-par-required (this is the push).
   */
  par: [
    checkClient,
    checkNoRequestUri,
    checkRequestObject,
    checkRedirectUri,
    ...REQUEST_RULES,
  ],
  /**
   * /native/authorize, the client authenticated as at the token endpoint (OAuth 2.0 for
   * First-Party Applications §4.1): a first-party native client first, then the rules of the
   * request itself. No redirect URI (the code is the endpoint's answer), so no
   * check-redirect-uri, no request objects and no pushed requests (no browser to protect).
   */
  native: [
    checkClient,
    checkFirstPartyNative,
    checkNoRequestUri,
    checkNativeDelivery,
    ...REQUEST_RULES,
  ],
} as const satisfies Record<string, readonly Check[]>;

/** A request that passed its checks, and its client. */
export interface Checked {
  request: CheckedRequest;
  client: ClientView;
}

/** Runs `checks` in order; the OAuthError of the first that fails is thrown as it is. */
export async function runChecks(checks: readonly Check[], ctx: CheckContext, services: CheckServices): Promise<Checked> {
  for (const check of checks) await check(ctx, services);
  return { request: checkedRequest(ctx), client: ctx.client! };
}

/**
 * At the authorization endpoint (RFC 6749 §4.1.2.1): an error goes back to the client once the
 * redirect URI is trusted, and is shown to the user before.
 */
export async function runBrowserChecks(checks: readonly Check[], ctx: CheckContext, services: CheckServices): Promise<Checked> {
  try {
    return await runChecks(checks, ctx, services);
  } catch (e) {
    if (!(e instanceof OAuthError)) throw e;
    if (!ctx.trusted) throw new UserFacingError(e);
    const { responseMode, ...trusted } = ctx.trusted;
    const redirect = { ...trusted, responseMode: transportOf(responseMode) };
    if (!isJwtMode(responseMode)) throw new RedirectableError(e, redirect);
    // JARM §2.4: errors travel signed too.
    const response = await services.jarm.response(ctx.tenantId, ctx.client!.clientId, { error: e.code, error_description: e.description, state: trusted.state });
    throw new RedirectableError(e, { ...redirect, response });
  }
}

function checkedRequest({ tenantId, client, request: r }: CheckContext): CheckedRequest {
  const out: CheckedRequest = {
    tenantId,
    clientId: client!.clientId,
    redirectUri: r.redirectUri!,
    responseMode: r.responseMode!,
    state: r.state,
    nonce: r.nonce,
    scope: r.scope!,
    codeChallenge: r.codeChallenge!,
    codeChallengeMethod: r.codeChallengeMethod!,
    prompt: r.prompt!,
    maxAge: r.maxAge,
    loginHint: r.loginHint,
  };
  // Optional fields by assignment (see domain/shared/merged.ts).
  if (r.redirectUriOmitted) out.redirectUriOmitted = true;
  if (r.hintSubject !== undefined) out.hintSubject = r.hintSubject;
  if (r.uiLocales !== undefined) out.uiLocales = r.uiLocales;
  if (r.resource !== undefined) out.resource = r.resource;
  if (r.dpopJkt !== undefined) out.dpopJkt = r.dpopJkt;
  if (r.acrValues !== undefined) out.acrValues = r.acrValues;
  return out;
}
