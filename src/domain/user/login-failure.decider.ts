import { factDecider } from '../shared/decider.js';
import type { LoginFailed } from './user.events.js';

/**
 * A failed sign-in, as a fact: on the user's stream when the username is someone's, otherwise
 * on the tenant's stream of failures (by the username's keyed hash, never the name itself).
 */
export type LoginFailureCommand =
  | { kind: 'RecordBadPassword'; tenantId: string; clientId: string; userId: string }
  /** `unrecordedBefore`: unknown usernames left out before this one (the tenant's budget ran out). */
  | { kind: 'RecordUnknownUsername'; tenantId: string; clientId: string; usernameHash: string; unrecordedBefore?: number };

export const loginFailureDecider = factDecider<LoginFailureCommand, LoginFailed>((c): LoginFailed[] => {
  if (c.kind === 'RecordBadPassword') return [{ type: 'LoginFailed', data: { tenantId: c.tenantId, clientId: c.clientId, reason: 'bad_password', userId: c.userId } }];
  const data: LoginFailed['data'] = { tenantId: c.tenantId, clientId: c.clientId, reason: 'unknown_user', usernameHash: c.usernameHash };
  if (c.unrecordedBefore) data.unrecordedBefore = c.unrecordedBefore;
  return [{ type: 'LoginFailed', data }];
});
