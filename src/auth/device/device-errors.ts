import { OAuthError } from '../oauth-errors.js';

/** RFC 8628 §3.5: the user has not answered yet; the device polls again after `interval`. */
export class AuthorizationPending extends OAuthError {
  readonly code = 'authorization_pending';
  readonly status = 400;
}
/** RFC 8628 §3.5: polled sooner than `interval`; the interval grows by 5 s for this device code. */
export class SlowDown extends OAuthError {
  readonly code = 'slow_down';
  readonly status = 400;
}
/** RFC 8628 §3.5: the device code has expired; the device starts again. */
export class ExpiredToken extends OAuthError {
  readonly code = 'expired_token';
  readonly status = 400;
}
/** RFC 8628 §3.5: the user denied the request (400 at the token endpoint, unlike the browser's 403 page). */
export class DeviceAccessDenied extends OAuthError {
  readonly code = 'access_denied';
  readonly status = 400;
}
