import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { UserClaims, UserEvent } from './user.events.js';

const USERNAME = /^[^\s]{1,256}$/;

export type UserCommand =
  | { kind: 'ReserveUsername'; tenantId: string; username: string; userId: string }
  | { kind: 'CreateUser'; tenantId: string; userId: string; username: string; passwordHash: string; claims: UserClaims; now: string };

export interface UserState {
  reservedFor?: string;
  created?: { userId: string; username: string; passwordHash: string; claims: UserClaims; createdAt: string };
}

/** One decider serves both streams of a user: the username reservation and the user itself. */
export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState: {},
  decide(command, state) {
    switch (command.kind) {
      case 'ReserveUsername':
        if (!USERNAME.test(command.username)) throw new DomainError('invalid_value', `username "${command.username}" is not valid`);
        if (state.reservedFor === command.userId) return [];
        if (state.reservedFor) throw new DomainError('already_exists', `username "${command.username}" is taken`);
        return [{ type: 'UsernameReserved', data: { tenantId: command.tenantId, username: command.username, userId: command.userId } }];
      case 'CreateUser':
        if (state.created) return [];
        return [
          {
            type: 'UserCreated',
            data: {
              tenantId: command.tenantId,
              userId: command.userId,
              username: command.username,
              passwordHash: command.passwordHash,
              claims: command.claims,
              createdAt: command.now,
            },
          },
        ];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'UsernameReserved':
        return { ...state, reservedFor: event.data.userId };
      case 'UserCreated': {
        const { tenantId: _t, ...created } = event.data;
        return { ...state, created };
      }
      default:
        return assertNever(event);
    }
  },
};
