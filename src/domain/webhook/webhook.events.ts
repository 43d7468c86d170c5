import type { DomainEvent } from '../shared/decider.js';

/** A webhook subscription as an administrator defines it. */
export interface WebhookDefinition {
  subscriptionId: string;
  /** Where each event is POSTed. */
  url: string;
  /** The feed's event types it receives (`session.revoked`, ...), or `['*']` for all. */
  eventTypes: string[];
  /** An administrator's switch: a disabled subscription is sent nothing (see docs/delivery.md). */
  enabled: boolean;
  description?: string;
}

/** Why a subscription was paused by the server. */
export type WebhookPauseReason = 'dead_letters';

/** `sealedSecret`: the Standard Webhooks secret sealed with the key-encryption key; never in the clear. */
export type WebhookSubscriptionCreated = DomainEvent<'WebhookSubscriptionCreated', { tenantId: string; sealedSecret: string } & WebhookDefinition>;
/** The whole definition after an administrator's change. */
export type WebhookSubscriptionUpdated = DomainEvent<'WebhookSubscriptionUpdated', { tenantId: string } & WebhookDefinition>;
/**
 * A new secret, sealed; the one it replaces still signs too (beside the new one) until
 * `previousValidUntil` (seconds since the epoch). Absent, in events from before grace periods:
 * the previous secret stopped at once.
 */
export type WebhookSecretRotated = DomainEvent<'WebhookSecretRotated', { tenantId: string; subscriptionId: string; sealedSecret: string; previousValidUntil?: number }>;
/** The server stopped sending: `deadLetters` deliveries in a row ran out of retries. */
export type WebhookSubscriptionPaused = DomainEvent<'WebhookSubscriptionPaused', { tenantId: string; subscriptionId: string; reason: WebhookPauseReason; deadLetters: number }>;
/** An administrator resumed a paused subscription: what was held is sent. */
export type WebhookSubscriptionResumed = DomainEvent<'WebhookSubscriptionResumed', { tenantId: string; subscriptionId: string }>;
/** An administrator asked for the subscription's events after feed cursor `after` (up to this event) to be sent again. */
export type WebhookReplayRequested = DomainEvent<'WebhookReplayRequested', { tenantId: string; subscriptionId: string; after: number }>;
export type WebhookSubscriptionDeleted = DomainEvent<'WebhookSubscriptionDeleted', { tenantId: string; subscriptionId: string }>;

export type WebhookEvent =
  | WebhookSubscriptionCreated
  | WebhookSubscriptionUpdated
  | WebhookSecretRotated
  | WebhookSubscriptionPaused
  | WebhookSubscriptionResumed
  | WebhookReplayRequested
  | WebhookSubscriptionDeleted;
