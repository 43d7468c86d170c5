import type { DomainEvent } from '../shared/decider.js';

/** The second factors a tenant may ask for; `webauthn`: a passkey or security key (WebAuthn Level 3). */
export const FACTORS = ['totp', 'email_otp', 'webauthn'] as const;
export type Factor = (typeof FACTORS)[number];

/** `required`: every sign-in proves it (enrolling first if need be); `optional`: users who enrolled prove it; `off`: never asked. */
export const FACTOR_POLICIES = ['required', 'optional', 'off'] as const;
export type FactorPolicy = (typeof FACTOR_POLICIES)[number];

export type FactorPolicies = Partial<Record<Factor, FactorPolicy>>;

/** A tenant's second factors, with per-client overrides of the tenant's policy (by client_id). */
export interface ChallengesDefinition {
  factors: FactorPolicies;
  clients: Record<string, FactorPolicies>;
}

/** The whole definition after an admin's change. */
export type ChallengesChanged = DomainEvent<'ChallengesChanged', { tenantId: string } & ChallengesDefinition>;
export type ChallengesDeleted = DomainEvent<'ChallengesDeleted', { tenantId: string }>;

export type ChallengesEvent = ChallengesChanged | ChallengesDeleted;
