import { DomainError } from '../shared/domain-error.js';
import { validateRegisteredUri } from './backchannel-logout-uri.js';

const MAX_LENGTH = 2000;

/**
 * A registrable `jwks_uri` (RFC 7591 §2): absolute, without a fragment or credentials, https;
 * plain http only on a loopback or private host, which only an administrator registers.
 */
export function validateJwksUri(value: string): void {
  if (value.length > MAX_LENGTH) throw new DomainError('invalid_value', `jwks_uri "${value.slice(0, 200)}" must be at most ${MAX_LENGTH} characters`);
  validateRegisteredUri(value, 'jwks_uri');
}
