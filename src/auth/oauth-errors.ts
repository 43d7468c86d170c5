import { Logger } from '@nestjs/common';
import { StoreOutcomeUnknownError, StoreUnavailableError, WrongExpectedRevisionError } from '../infrastructure/event-store/event-store.port.js';
import { ProjectionLagError } from '../infrastructure/read-store/projection-runner.js';
import { OncePerMinute } from '../shared/failure-budget.js';

/**
 * One class per OAuth error code (RFC 6749 §4.1.2.1, §5.2; RFC 6750 §3.1; RFC 7009 §2.2.1;
 * OpenID Connect Core §3.1.2.6), each with its HTTP status. Descriptions are client-safe.
 */
export abstract class OAuthError extends Error {
  abstract readonly code: string;
  abstract readonly status: number;
  readonly description?: string;
  constructor(description?: string) {
    // RFC 6749 §5.2: error_description is printable ASCII without `"` and `\`; a description
    // that quotes the request (a grant_type, say) must not carry anything else back.
    const safe = description?.replaceAll('"', "'").replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
    super(safe);
    this.description = safe;
  }
}

export class InvalidRequest extends OAuthError {
  readonly code = 'invalid_request';
  readonly status = 400;
}
/** RFC 9110 §15.5.14: the body is larger than any request here needs (64 KiB). */
export class ContentTooLarge extends OAuthError {
  readonly code = 'invalid_request';
  readonly status = 413;
}
/** RFC 9110 §15.5.16: a body in a content coding (`Content-Encoding`) the server does not decode. */
export class UnsupportedContentEncoding extends OAuthError {
  readonly code = 'invalid_request';
  readonly status = 415;
}
/**
 * RFC 6749 §5.2: 401 with a Basic challenge, the scheme the Authorization header accepts. Sent
 * whatever method the client tried, since every 401 names a scheme (RFC 9110 §15.5.2).
 */
export class InvalidClient extends OAuthError {
  readonly code = 'invalid_client';
  readonly status = 401;
}
export class InvalidGrant extends OAuthError {
  readonly code = 'invalid_grant';
  readonly status = 400;
}
export class UnauthorizedClient extends OAuthError {
  readonly code = 'unauthorized_client';
  readonly status = 400;
}
export class UnsupportedGrantType extends OAuthError {
  readonly code = 'unsupported_grant_type';
  readonly status = 400;
}
export class InvalidScope extends OAuthError {
  readonly code = 'invalid_scope';
  readonly status = 400;
}
/** RFC 8707 §2: the resource asked for is invalid, unknown, or not one the client may have. */
export class InvalidTarget extends OAuthError {
  readonly code = 'invalid_target';
  readonly status = 400;
}
export class UnsupportedResponseType extends OAuthError {
  readonly code = 'unsupported_response_type';
  readonly status = 400;
}
export class AccessDenied extends OAuthError {
  readonly code = 'access_denied';
  readonly status = 403;
}
export class LoginRequired extends OAuthError {
  readonly code = 'login_required';
  readonly status = 400;
}
export class ConsentRequired extends OAuthError {
  readonly code = 'consent_required';
  readonly status = 400;
}
/** RFC 9101 §6.2: the `request_uri` is unknown, expired, used or another client's. */
export class InvalidRequestUri extends OAuthError {
  readonly code = 'invalid_request_uri';
  readonly status = 400;
}
/** RFC 9101 §6.2: the request object cannot be verified or breaks a rule. */
export class InvalidRequestObject extends OAuthError {
  readonly code = 'invalid_request_object';
  readonly status = 400;
}
export class RegistrationNotSupported extends OAuthError {
  readonly code = 'registration_not_supported';
  readonly status = 400;
}
/** RFC 6750 §3.1: 401 with `WWW-Authenticate: Bearer error="invalid_token"`. */
export class InvalidToken extends OAuthError {
  readonly code = 'invalid_token';
  readonly status = 401;
}
/** RFC 6750 §3.1: a malformed request to a resource (the token sent in more than one way), with the Bearer challenge. */
export class InvalidBearerRequest extends OAuthError {
  readonly code = 'invalid_request';
  readonly status = 400;
}
/** RFC 6750 §3.1: no credentials at all; the challenge carries no error code. */
export class BearerRequired extends OAuthError {
  readonly code = 'invalid_token';
  readonly status = 401;
}
export class InsufficientScope extends OAuthError {
  readonly code = 'insufficient_scope';
  readonly status = 403;
}
export class NotFound extends OAuthError {
  readonly code = 'not_found';
  readonly status = 404;
}
/** RFC 9110 §15.5.6: the path exists, not with this method; `allow` lists the methods it takes. */
export class MethodNotAllowed extends OAuthError {
  readonly code = 'invalid_request';
  readonly status = 405;
  constructor(readonly allow: string[]) {
    super(`method not allowed; this endpoint takes ${allow.join(', ')}`);
  }
}
// DPoP (RFC 9449)
/** RFC 9449 §5: the DPoP proof of a token request fails its checks (or is missing where required). */
export class InvalidDpopProof extends OAuthError {
  readonly code = 'invalid_dpop_proof';
  readonly status = 400;
}
/**
 * RFC 9449 §8 (token endpoint) and §9 (resources): the proof lacks the server's current nonce;
 * the nonce to use goes back in `DPoP-Nonce`. `status` 400 at the token endpoint, 401 at a resource.
 */
export class UseDpopNonce extends OAuthError {
  readonly code = 'use_dpop_nonce';
  constructor(
    readonly nonce: string,
    readonly status: 400 | 401,
    readonly algs?: readonly string[],
  ) {
    super('a DPoP proof with the nonce in the DPoP-Nonce header is required');
  }
}
/** RFC 9449 §7.1: a resource request refused with the DPoP challenge (`WWW-Authenticate: DPoP error=..., algs=...`). */
export class DpopChallenge extends OAuthError {
  readonly status = 401;
  constructor(
    readonly code: 'invalid_token' | 'invalid_dpop_proof',
    description: string,
    readonly algs: readonly string[],
  ) {
    super(description);
  }
}

// OAuth 2.0 for First-Party Applications (draft-ietf-oauth-first-party-apps §5.2.2.1)
/** The auth_session is invalid, expired, used already, or another client's. */
export class InvalidSession extends OAuthError {
  readonly code = 'invalid_session';
  readonly status = 400;
}
/** The sign-in cannot go on without a browser: the app starts an authorization code flow (403 by the draft). */
export class RedirectToWeb extends OAuthError {
  readonly code = 'redirect_to_web';
  readonly status = 403;
}

export class ServerError extends OAuthError {
  readonly code = 'server_error';
  readonly status = 500;
}
export class TemporarilyUnavailable extends OAuthError {
  readonly code = 'temporarily_unavailable';
  readonly status = 503;
}

/** While the store refuses writes, every request would log one line: once a minute, with a count. */
const storeRefusals = new OncePerMinute((line) => new Logger('Errors').error(line));

/**
 * The answer to a failure of the store, or of a race on it; undefined for anything else. One
 * that may pass is `temporarily_unavailable` (RFC 6749): a race lost more often than the server
 * retries, views that did not catch up in time, or a store that cannot take the request's
 * events now (a full disk, say), which recorded nothing. A write whose outcome is unknown (an
 * fsync that failed) is `server_error`: a retry is no safe answer to it.
 */
export function storeError(e: unknown): OAuthError | undefined {
  if (e instanceof ProjectionLagError || e instanceof WrongExpectedRevisionError) return new TemporarilyUnavailable('the server is busy; retry shortly');
  if (e instanceof StoreOutcomeUnknownError) {
    // Rare, and each leaves a request in doubt: every one is logged.
    new Logger('Errors').error(e.message);
    return new ServerError('the server could not confirm that this was recorded: it may have taken effect or not');
  }
  if (!(e instanceof StoreUnavailableError)) return undefined;
  storeRefusals.log(e.message);
  return new TemporarilyUnavailable('the server cannot record this now; retry later');
}

/**
 * An error at the authorization endpoint, once the redirect URI is trusted: it goes back to
 * the client (RFC 6749 §4.1.2.1) with `state` and `iss` (RFC 9207).
 */
export class RedirectableError extends Error {
  constructor(
    readonly error: OAuthError,
    /** Where the error goes, and the cookies to set on the way (a spent sign-in request's, cleared). */
    /** `response`: the error signed as a JWT (JARM), sent alone in place of the fields. */
    readonly redirect: { redirectUri: string; responseMode: 'query' | 'form_post'; state?: string; iss: string; cookies?: string[]; response?: string },
  ) {
    super(error.description);
  }
}

/** An error shown to the user as an HTML page and never sent to the client (unknown client, bad redirect URI). */
export class UserFacingError extends Error {
  constructor(
    readonly error: OAuthError,
  ) {
    super(error.description);
  }
}
