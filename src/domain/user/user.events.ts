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
export type UserEvent = UsernameReserved | UserCreated;
