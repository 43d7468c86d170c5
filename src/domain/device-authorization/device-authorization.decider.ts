import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { DeviceAuthorizationApproved, DeviceAuthorizationEvent, DeviceAuthorizationRequested } from './device-authorization.events.js';

export type DeviceAuthorizationCommand =
  | ({ kind: 'Request' } & DeviceAuthorizationRequested['data'])
  /** `now` in seconds. */
  | { kind: 'Approve'; tenantId: string; key: string; userId: string; sessionId: string; codeHash: string; now: number }
  | { kind: 'Deny'; tenantId: string; key: string; userId: string; now: number };

export interface DeviceAuthorizationState {
  requested?: DeviceAuthorizationRequested['data'];
  approved?: DeviceAuthorizationApproved['data'];
  denied: boolean;
}

/**
 * One device authorization (RFC 8628), on a stream of its own: requested once, answered at
 * most once by a user before it expires. The append with the expected revision makes the
 * answer single even across server instances.
 */
export const deviceAuthorizationDecider: Decider<DeviceAuthorizationCommand, DeviceAuthorizationEvent, DeviceAuthorizationState> = {
  initialState: { denied: false },
  decide(command, state) {
    switch (command.kind) {
      case 'Request': {
        // A user code drawn twice (or one still answered): the caller draws another.
        if (state.requested) throw new DomainError('already_exists', 'this user code is taken');
        const { kind: _kind, ...data } = command;
        return [{ type: 'DeviceAuthorizationRequested', data }];
      }
      case 'Approve':
      case 'Deny': {
        const requested = state.requested;
        if (!requested || requested.tenantId !== command.tenantId || command.now >= requested.expiresAt) throw new DomainError('not_found', 'the user code is unknown or expired');
        if (state.approved || state.denied) throw new DomainError('already_exists', 'the user code was already answered');
        const { tenantId, clientId, key } = requested;
        return command.kind === 'Approve'
          ? [{ type: 'DeviceAuthorizationApproved', data: { tenantId, clientId, key, userId: command.userId, sessionId: command.sessionId, codeHash: command.codeHash } }]
          : [{ type: 'DeviceAuthorizationDenied', data: { tenantId, clientId, key, userId: command.userId } }];
      }
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'DeviceAuthorizationRequested':
        return { ...state, requested: event.data };
      case 'DeviceAuthorizationApproved':
        return { ...state, approved: event.data };
      case 'DeviceAuthorizationDenied':
        return { ...state, denied: true };
      default:
        return assertNever(event);
    }
  },
};
