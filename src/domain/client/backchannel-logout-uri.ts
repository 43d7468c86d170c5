import { isInternalHost } from '../../shared/address-policy.js';
import { DomainError } from '../shared/domain-error.js';

/**
 * A registrable `backchannel_logout_uri` (Back-Channel Logout 1.0 §2.2): absolute, without a
 * fragment, https; plain http only on a loopback or private host, since only an administrator
 * registers clients here (bootstrap file, admin API).
 */
export function validateBackchannelLogoutUri(value: string): void {
  validateRegisteredUri(value, 'backchannel_logout_uri');
}

/**
 * The same rules for any URI an administrator registers for the server to call (also
 * `frontchannel_logout_uri`, Front-Channel Logout 1.0 §2; `jwks_uri`), named `field` in errors.
 */
export function validateRegisteredUri(value: string, field: string): void {
  const fail = (why: string) => {
    throw new DomainError('invalid_value', `${field} "${value.slice(0, 200)}" ${why}`);
  };
  if (!URL.canParse(value)) fail('is not an absolute URI');
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail('must use https');
  if (value.includes('#')) fail('must not contain a fragment');
  if (url.username || url.password) fail('must not contain credentials');
  if (url.protocol === 'http:' && !isInternalHost(url.hostname)) fail('may use http only on a loopback or private-network host');
}
