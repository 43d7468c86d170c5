import { isIP } from 'node:net';
import { DomainError } from '../shared/domain-error.js';

/** IPv4 networks of loopback and private use (RFC 1122 §3.2.1.3, RFC 1918 §3, RFC 6598 §7). */
const PRIVATE_V4: Array<[number, number]> = [
  [0x7f000000, 8],
  [0x0a000000, 8],
  [0xac100000, 12],
  [0xc0a80000, 16],
  [0x64400000, 10],
];

function v4(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

/** True for a loopback or private-network host: internal services an administrator may register. */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) {
    const n = v4(host);
    return PRIVATE_V4.some(([net, bits]) => (n >>> (32 - bits)) === (net >>> (32 - bits)));
  }
  // ::1 loopback, fc00::/7 unique local (RFC 4193).
  if (isIP(host) === 6) return host === '::1' || /^f[cd][0-9a-f]{0,2}:/.test(host);
  return false;
}

/**
 * A registrable `backchannel_logout_uri` (Back-Channel Logout 1.0 §2.2): absolute, without a
 * fragment, https; plain http only on a loopback or private host, since only an administrator
 * registers clients here (bootstrap file, admin API).
 */
export function validateBackchannelLogoutUri(value: string): void {
  validateLogoutUri(value, 'backchannel_logout_uri');
}

/** The same rules for any logout URI an administrator registers (also `frontchannel_logout_uri`, Front-Channel Logout 1.0 §2), named `field` in errors. */
export function validateLogoutUri(value: string, field: string): void {
  const fail = (why: string) => {
    throw new DomainError('invalid_value', `${field} "${value}" ${why}`);
  };
  if (!URL.canParse(value)) fail('is not an absolute URI');
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail('must use https');
  if (value.includes('#')) fail('must not contain a fragment');
  if (url.username || url.password) fail('must not contain credentials');
  if (url.protocol === 'http:' && !isInternalHost(url.hostname)) fail('may use http only on a loopback or private-network host');
}
