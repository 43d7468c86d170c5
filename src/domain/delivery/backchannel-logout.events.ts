import type { DomainEvent } from '../shared/decider.js';

/**
 * Outcomes of delivering a logout token (OpenID Connect Back-Channel Logout 1.0) to one client
 * for one ended session, on the stream `backchannellogout-<tenant>.<delivery id>`. Never the
 * token itself. `sessionId` and `userId` name the session that ended, so its history shows them.
 */
interface DeliveryFields {
  tenantId: string;
  deliveryId: string;
  clientId: string;
  sessionId: string;
  userId: string;
  /** Attempts made so far, this one included. */
  attempts: number;
}

/** The receiver answered 2xx. */
export type BackchannelLogoutDelivered = DomainEvent<'BackchannelLogoutDelivered', DeliveryFields & { status: number }>;
/** One attempt failed: `status` the HTTP status, or `error` (timeout, connection refused, ...); `nextAttemptAt` ISO time. */
export type BackchannelLogoutFailed = DomainEvent<'BackchannelLogoutFailed', DeliveryFields & { status?: number; error?: string; nextAttemptAt: string }>;
/** Retries ran out; the delivery waits in the dead letters for an administrator's redelivery. */
export type BackchannelLogoutDeadLettered = DomainEvent<'BackchannelLogoutDeadLettered', DeliveryFields & { status?: number; error?: string }>;

export type BackchannelLogoutEvent = BackchannelLogoutDelivered | BackchannelLogoutFailed | BackchannelLogoutDeadLettered;

export const BACKCHANNEL_LOGOUT_EVENTS = ['BackchannelLogoutDelivered', 'BackchannelLogoutFailed', 'BackchannelLogoutDeadLettered'] as const;
