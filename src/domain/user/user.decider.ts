import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { UserClaims, UserEvent } from './user.events.js';

const USERNAME = /^[^\s]{1,256}$/;

export type UserCommand =
  | { kind: 'ReserveUsername'; tenantId: string; username: string; userId: string }
  | { kind: 'CreateUser'; tenantId: string; userId: string; username: string; passwordHash: string; claims: UserClaims; now: string }
  | { kind: 'GrantConsent'; clientId: string; scope: string[]; sessionId?: string }
  | { kind: 'DenyConsent'; clientId: string; scope: string[]; sessionId: string };

export interface UserState {
  tenantId?: string;
  reservedFor?: string;
  created?: { userId: string; username: string; passwordHash: string; claims: UserClaims; createdAt: string };
  /** Scopes each client was allowed, by client id. */
  consents: Record<string, string[]>;
}

/** True when the user already allowed the client every one of these scopes. */
export function hasConsent(state: UserState, clientId: string, scope: readonly string[]): boolean {
  const granted = consentedScopes(state, clientId);
  return scope.every((s) => granted.includes(s));
}

/** Own entries only: a client id such as `constructor` must not find Object.prototype's. */
function consentedScopes(state: UserState, clientId: string): readonly string[] {
  return Object.hasOwn(state.consents, clientId) ? state.consents[clientId] : [];
}

/** One decider serves both streams of a user: the username reservation and the user itself. */
export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState: { consents: {} },
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
      case 'DenyConsent':
        if (!state.created || !state.tenantId) throw new DomainError('not_found', 'unknown user');
        return [{ type: 'ConsentDenied', data: { tenantId: state.tenantId, userId: state.created.userId, clientId: command.clientId, scope: command.scope, sessionId: command.sessionId } }];
      case 'GrantConsent': {
        if (!state.created || !state.tenantId) throw new DomainError('not_found', 'unknown user');
        if (hasConsent(state, command.clientId, command.scope)) return [];
        const scope = [...new Set([...consentedScopes(state, command.clientId), ...command.scope])];
        const inSession = command.sessionId ? { sessionId: command.sessionId } : {};
        return [{ type: 'ConsentGranted', data: { tenantId: state.tenantId, userId: state.created.userId, clientId: command.clientId, scope, ...inSession } }];
      }
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'UsernameReserved':
        return { ...state, reservedFor: event.data.userId };
      case 'UserCreated': {
        const { tenantId, ...created } = event.data;
        return { ...state, tenantId, created };
      }
      case 'ConsentGranted':
        return { ...state, consents: { ...state.consents, [event.data.clientId]: event.data.scope } };
      case 'ConsentDenied':
      case 'LoginFailed':
        return state;
      default:
        return assertNever(event);
    }
  },
  // A user's stream also takes every failed sign-in (the throttle lets about a hundred a day
  // through for a username under attack): saved, a load need not fold them all again. Version
  // 1: the state as above, plain JSON already.
  snapshot: {
    version: 1,
    encode: (s) => s,
    decode: (saved) => saved as UserState,
  },
};
