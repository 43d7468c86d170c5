import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { UserClaims, UserEvent } from './user.events.js';

const USERNAME = /^[^\s]{1,256}$/;

export type UserCommand =
  | { kind: 'ReserveUsername'; tenantId: string; username: string; userId: string }
  | { kind: 'CreateUser'; tenantId: string; userId: string; username: string; passwordHash: string; claims: UserClaims; now: string }
  /** An admin's edit, applied as one change: the whole claims set, a new password hash, enabled or disabled; what is left out stays. */
  | { kind: 'EditUser'; claims?: UserClaims; passwordHash?: string; disabled?: boolean }
  | { kind: 'DeleteUser' }
  /** `roleExists`: whether the role was found on its stream when the command was built. */
  | { kind: 'AssignRole'; roleId: string; roleExists: boolean }
  | { kind: 'UnassignRole'; roleId: string }
  | { kind: 'GrantConsent'; clientId: string; scope: string[]; sessionId?: string }
  | { kind: 'DenyConsent'; clientId: string; scope: string[]; sessionId: string };

export interface UserState {
  tenantId?: string;
  reservedFor?: string;
  created?: { userId: string; username: string; passwordHash: string; claims: UserClaims; createdAt: string };
  /** Scopes each client was allowed, by client id. */
  consents: Record<string, string[]>;
  disabled?: boolean;
  deleted?: boolean;
  /** Ids of the roles the user holds. */
  roles?: string[];
}

/** True when the user already allowed the client every one of these scopes. */
export function hasConsent(state: UserState, clientId: string, scope: readonly string[]): boolean {
  const granted = consentedScopes(state, clientId);
  return scope.every((s) => granted.includes(s));
}

/** The user as it stands, or not_found when it was never created or has been deleted. */
function existing(state: UserState): { created: NonNullable<UserState['created']>; tenantId: string } {
  if (!state.created || !state.tenantId || state.deleted) throw new DomainError('not_found', 'unknown user');
  return { created: state.created, tenantId: state.tenantId };
}

function sameClaims(a: UserClaims, b: UserClaims): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as (keyof UserClaims)[]);
  return [...keys].every((k) => a[k] === b[k]);
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
      case 'EditUser': {
        const { created, tenantId } = existing(state);
        const ids = { tenantId, userId: created.userId };
        const events: UserEvent[] = [];
        if (command.claims && !sameClaims(command.claims, created.claims)) events.push({ type: 'UserUpdated', data: { ...ids, claims: command.claims } });
        if (command.passwordHash !== undefined) events.push({ type: 'UserPasswordChanged', data: { ...ids, passwordHash: command.passwordHash } });
        if (command.disabled !== undefined && command.disabled !== (state.disabled ?? false)) events.push({ type: command.disabled ? 'UserDisabled' : 'UserEnabled', data: ids });
        return events;
      }
      case 'DeleteUser': {
        const { created, tenantId } = existing(state);
        // The roles go first, so that the roles' assignment counts never include a deleted user.
        const unassigned = (state.roles ?? []).map((roleId): UserEvent => ({ type: 'RoleUnassigned', data: { tenantId, userId: created.userId, roleId } }));
        return [...unassigned, { type: 'UserDeleted', data: { tenantId, userId: created.userId, username: created.username } }];
      }
      case 'AssignRole': {
        const { created, tenantId } = existing(state);
        if (!command.roleExists) throw new DomainError('invalid_value', `no role ${command.roleId}`);
        if (state.roles?.includes(command.roleId)) return [];
        return [{ type: 'RoleAssigned', data: { tenantId, userId: created.userId, roleId: command.roleId } }];
      }
      case 'UnassignRole': {
        const { created, tenantId } = existing(state);
        if (!state.roles?.includes(command.roleId)) throw new DomainError('not_found', `the user does not hold the role ${command.roleId}`);
        return [{ type: 'RoleUnassigned', data: { tenantId, userId: created.userId, roleId: command.roleId } }];
      }
      case 'DenyConsent': {
        const { created, tenantId } = existing(state);
        return [{ type: 'ConsentDenied', data: { tenantId, userId: created.userId, clientId: command.clientId, scope: command.scope, sessionId: command.sessionId } }];
      }
      case 'GrantConsent': {
        const { created, tenantId } = existing(state);
        if (hasConsent(state, command.clientId, command.scope)) return [];
        const scope = [...new Set([...consentedScopes(state, command.clientId), ...command.scope])];
        const inSession = command.sessionId ? { sessionId: command.sessionId } : {};
        return [{ type: 'ConsentGranted', data: { tenantId, userId: created.userId, clientId: command.clientId, scope, ...inSession } }];
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
      case 'UserUpdated':
        return state.created ? { ...state, created: { ...state.created, claims: event.data.claims } } : state;
      case 'UserPasswordChanged':
        return state.created ? { ...state, created: { ...state.created, passwordHash: event.data.passwordHash } } : state;
      case 'UserDisabled':
        return { ...state, disabled: true };
      case 'UserEnabled':
        return { ...state, disabled: false };
      case 'UserDeleted':
        return { ...state, deleted: true };
      case 'RoleAssigned':
        return { ...state, roles: [...(state.roles ?? []), event.data.roleId] };
      case 'RoleUnassigned':
        return { ...state, roles: (state.roles ?? []).filter((r) => r !== event.data.roleId) };
      case 'ConsentDenied':
      case 'LoginFailed':
        return state;
      default:
        return assertNever(event);
    }
  },
  // A user's stream also takes every failed sign-in (the throttle lets about a hundred a day
  // through for a username under attack): saved, a load need not fold them all again. Version
  // 3: the state as above (with `disabled`, `deleted` and `roles`), plain JSON already.
  snapshot: {
    version: 3,
    encode: (s) => s,
    decode: (saved) => saved as UserState,
  },
};
