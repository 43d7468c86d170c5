import type { DomainEvent } from '../shared/decider.js';

/**
 * Outcomes of pushing one SET (RFC 8935) to one stream's receiver, on the stream
 * `ssfpush-<tenant>.<delivery id>`. Never the SET nor the stream's Authorization header.
 */
interface SsfPushFields {
  tenantId: string;
  deliveryId: string;
  streamId: string;
  clientId: string;
  jti: string;
  /** Attempts made so far, this one included. */
  attempts: number;
}

/** The receiver answered 2xx (RFC 8935 §2.2: 202 Accepted). */
export type SsfSetDelivered = DomainEvent<'SsfSetDelivered', SsfPushFields & { status: number }>;
/** One attempt failed: `status` the HTTP status, or `error`; `nextAttemptAt` ISO time. */
export type SsfSetDeliveryFailed = DomainEvent<'SsfSetDeliveryFailed', SsfPushFields & { status?: number; error?: string; nextAttemptAt: string }>;
/** Retries ran out; the delivery waits in the dead letters. */
export type SsfSetDeliveryDeadLettered = DomainEvent<'SsfSetDeliveryDeadLettered', SsfPushFields & { status?: number; error?: string }>;

export type SsfPushEvent = SsfSetDelivered | SsfSetDeliveryFailed | SsfSetDeliveryDeadLettered;
