import { InvalidRequest } from '../auth/oauth-errors.js';
import { internalLiteral, isInternalHost } from '../shared/address-policy.js';
import { validateRegisteredUri } from '../domain/client/backchannel-logout-uri.js';
import { DomainError } from '../domain/shared/domain-error.js';

const FIELD = 'delivery.endpoint_url';

/**
 * The `endpoint_url` a receiver gives for push delivery (RFC 8935). A receiver's own request
 * names it, so unless an administrator registered the client with `ssf_push_internal_endpoints`
 * it must be https to a host on the public Internet: no loopback, private, link-local or
 * otherwise reserved address literal, no `localhost` name (a name's addresses are checked at
 * each delivery, when it is resolved). With the flag, as for a logout URI an administrator
 * registers: https, or http on a loopback or private-network host.
 */
export function checkPushEndpoint(value: string, internalAllowed: boolean): void {
  try {
    validateRegisteredUri(value, FIELD);
  } catch (e) {
    if (e instanceof DomainError) throw new InvalidRequest(e.message);
    throw e;
  }
  if (internalAllowed) return;
  const url = new URL(value);
  if (url.protocol !== 'https:') throw new InvalidRequest(`${FIELD} must use https`);
  if (isInternalHost(url.hostname) || internalLiteral(url.hostname)) throw new InvalidRequest(`${FIELD} must name a host on the public Internet`);
}

/** Whether a delivery may go to `value` now: the flag may have been taken away since the stream was made. */
export function pushEndpointRefusal(value: string, internalAllowed: boolean): string | undefined {
  try {
    checkPushEndpoint(value, internalAllowed);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
