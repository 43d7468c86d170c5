import type { DomainEvent } from '../shared/decider.js';

/**
 * Outcomes of delivering one feed event to one webhook subscription, on the stream
 * `webhookdelivery-<tenant>.<delivery id>`. Never the body's secret nor a signature.
 */
interface WebhookDeliveryFields {
  tenantId: string;
  deliveryId: string;
  subscriptionId: string;
  /** The integration event's id (the `webhook-id` header) and type. */
  eventId: string;
  eventType: string;
  /** Attempts made so far, this one included. */
  attempts: number;
}

/** The receiver answered 2xx. */
export type WebhookDelivered = DomainEvent<'WebhookDelivered', WebhookDeliveryFields & { status: number }>;
/** One attempt failed: `status` the HTTP status, or `error`; `nextAttemptAt` ISO time. */
export type WebhookDeliveryFailed = DomainEvent<'WebhookDeliveryFailed', WebhookDeliveryFields & { status?: number; error?: string; nextAttemptAt: string }>;
/** Retries ran out; the delivery waits in the dead letters. */
export type WebhookDeliveryDeadLettered = DomainEvent<'WebhookDeliveryDeadLettered', WebhookDeliveryFields & { status?: number; error?: string }>;

export type WebhookDeliveryEvent = WebhookDelivered | WebhookDeliveryFailed | WebhookDeliveryDeadLettered;
