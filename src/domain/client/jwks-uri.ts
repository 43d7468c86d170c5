import { DomainError } from '../shared/domain-error.js';
import { isInternalHost } from './backchannel-logout-uri.js';

const MAX_LENGTH = 2000;

/**
 * A registrable `jwks_uri` (RFC 7591 §2): absolute, without a fragment or credentials, https;
 * plain http only on a loopback or private host, which only an administrator registers.
 */
export function validateJwksUri(value: string): void {
  const fail = (why: string) => {
    throw new DomainError('invalid_value', `jwks_uri "${value.slice(0, 200)}" ${why}`);
  };
  if (value.length > MAX_LENGTH) fail(`must be at most ${MAX_LENGTH} characters`);
  if (!URL.canParse(value)) fail('is not an absolute URI');
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail('must use https');
  if (value.includes('#')) fail('must not contain a fragment');
  if (url.username || url.password) fail('must not contain credentials');
  if (url.protocol === 'http:' && !isInternalHost(url.hostname)) fail('may use http only on a loopback or private-network host');
}
