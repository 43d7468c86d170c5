import type { DomainEvent } from '../shared/decider.js';

/** OpenID Connect standard claims kept for a user. */
export interface UserClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
  given_name?: string;
  family_name?: string;
}

export type UsernameReserved = DomainEvent<'UsernameReserved', { tenantId: string; username: string; userId: string }>;
export type UserCreated = DomainEvent<
  'UserCreated',
  { tenantId: string; userId: string; username: string; passwordHash: string; claims: UserClaims; createdAt: string }
>;
/** The user allowed a client these scopes (remembered, so the consent page is shown once). */
/** `sessionId`: the browser session in which the user consented (so the session's history shows it). */
export type ConsentGranted = DomainEvent<'ConsentGranted', { tenantId: string; userId: string; clientId: string; scope: string[]; sessionId?: string }>;
/** The user denied a client these scopes on the consent page. It changes nothing: a consent given before stays, and the page is asked for again. */
export type ConsentDenied = DomainEvent<'ConsentDenied', { tenantId: string; userId: string; clientId: string; scope: string[]; sessionId: string }>;
/**
 * A failed sign-in: on the user's stream for a wrong password, on the tenant's
 * `loginfailures-` stream for an unknown username, kept only as a keyed hash
 * (`hmac-sha256:`), since a username typed by mistake may be a password; events written
 * before the hash was keyed carry a plain `sha256:`. Never the password. Unknown usernames are
 * recorded at most 60 a minute per tenant; `unrecordedBefore` counts those left out before.
 */
export type LoginFailed = DomainEvent<
  'LoginFailed',
  | { tenantId: string; clientId?: string; reason: 'bad_password'; userId: string }
  | { tenantId: string; clientId?: string; reason: 'unknown_user'; usernameHash: string; unrecordedBefore?: number }
>;
/** The admin replaced the user's claims: `claims` is the whole set after the change. */
export type UserUpdated = DomainEvent<'UserUpdated', { tenantId: string; userId: string; claims: UserClaims }>;
/** A new password, as its slow hash only. */
export type UserPasswordChanged = DomainEvent<'UserPasswordChanged', { tenantId: string; userId: string; passwordHash: string }>;
/** The user can no longer sign in, and none of their tokens is honoured while it lasts. */
export type UserDisabled = DomainEvent<'UserDisabled', { tenantId: string; userId: string }>;
export type UserEnabled = DomainEvent<'UserEnabled', { tenantId: string; userId: string }>;
/** The user is gone; the username stays reserved for them (never given to someone else). */
export type UserDeleted = DomainEvent<'UserDeleted', { tenantId: string; userId: string; username: string }>;
/** The user holds the role (and, through it, its permissions) from now on. */
export type RoleAssigned = DomainEvent<'RoleAssigned', { tenantId: string; userId: string; roleId: string }>;
/** The user no longer holds the role; also recorded for each role a deleted user held. */
export type RoleUnassigned = DomainEvent<'RoleUnassigned', { tenantId: string; userId: string; roleId: string }>;
export type UserEvent =
  | UsernameReserved
  | UserCreated
  | ConsentGranted
  | ConsentDenied
  | LoginFailed
  | UserUpdated
  | UserPasswordChanged
  | UserDisabled
  | UserEnabled
  | UserDeleted
  | RoleAssigned
  | RoleUnassigned;
