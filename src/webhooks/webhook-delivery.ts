import { createHash } from 'node:crypto';

/** The kind of a webhook's delivery. */
export const WEBHOOK = 'webhook';

/** What a webhook delivery carries: the subscription, the integration event and its CloudEvent JSON (the body; no secret by the feed's contract). */
export interface WebhookDeliveryData {
  subscriptionId: string;
  eventId: string;
  eventType: string;
  body: string;
}

export const webhookDeliveryStream = (tenantId: string, deliveryId: string) => `webhookdelivery-${tenantId}.${deliveryId}`;

/** A delivery's id, the same whenever the event is read again; a replay's own (`replayId`) so that it never overwrites the original. */
export function webhookDeliveryId(eventId: string, subscriptionId: string, replayId?: string): string {
  return createHash('sha256')
    .update(`${eventId}\n${subscriptionId}${replayId !== undefined ? `\n${replayId}` : ''}`)
    .digest('base64url')
    .slice(0, 22);
}
