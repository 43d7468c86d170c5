import type { ProjectedEvent, Projection } from './projection.js';

/** A tenant's webhook subscriptions, keyed `<tenant>/<id>`, with how their deliveries fare. */
export interface WebhookSubscriptionView {
  tenantId: string;
  subscriptionId: string;
  url: string;
  eventTypes: string[];
  enabled: boolean;
  description?: string;
  /** The Standard Webhooks secret, sealed (opened only to sign a delivery; never shown). */
  sealedSecret: string;
  /** The secret the last rotation replaced, sealed: it signs beside the current one until `previousSecretValidUntil` (seconds since the epoch). */
  previousSealedSecret?: string;
  previousSecretValidUntil?: number;
  /** Paused by the server, and why, until an administrator resumes it. */
  paused?: { reason: string; deadLetters: number; at: string };
  /** Deliveries dead-lettered since the last one delivered. */
  deadLettersInARow: number;
  lastDeliveredAt?: string;
  lastDeadLetterAt?: string;
  /** The log position of its creation: events before it are not its own. */
  since: number;
  createdAt: string;
  updatedAt: string;
  /** The revision of the subscription's stream (its ETag). */
  revision: number;
}

export const webhookKey = (tenantId: string, subscriptionId: string) => `${tenantId}/${subscriptionId}`;

const OWN = ['WebhookSubscriptionCreated', 'WebhookSubscriptionUpdated', 'WebhookSecretRotated', 'WebhookSubscriptionPaused', 'WebhookSubscriptionResumed', 'WebhookReplayRequested', 'WebhookSubscriptionDeleted'];
const OUTCOMES = ['WebhookDelivered', 'WebhookDeliveryDeadLettered'];

export const webhookSubscriptionsProjection: Projection<WebhookSubscriptionView> = {
  view: 'webhook_subscriptions',
  version: 1,
  eventTypes: [...OWN, ...OUTCOMES],
  indexes: [{ fields: ['tenantId'] }],
  documentId: (e: ProjectedEvent) => webhookKey(e.data.tenantId, e.data.subscriptionId),
  readsDocument: (e) => e.type !== 'WebhookSubscriptionCreated',
  apply(doc, e) {
    const at = e.metadata.occurredAt;
    if (e.type === 'WebhookSubscriptionCreated') {
      const { tenantId, subscriptionId, url, eventTypes, enabled, description, sealedSecret } = e.data;
      const base: WebhookSubscriptionView = { tenantId, subscriptionId, url, eventTypes, enabled, sealedSecret, deadLettersInARow: 0, since: e.position, createdAt: at, updatedAt: at, revision: e.revision };
      return description !== undefined ? Object.assign(base, { description }) : base;
    }
    if (!doc) return null;
    // Outcomes are on the deliveries' streams: they change neither the revision nor updatedAt.
    if (e.type === 'WebhookDelivered') return { ...doc, deadLettersInARow: 0, lastDeliveredAt: at };
    if (e.type === 'WebhookDeliveryDeadLettered') return { ...doc, deadLettersInARow: doc.deadLettersInARow + 1, lastDeadLetterAt: at };
    const own = { ...doc, updatedAt: at, revision: e.revision };
    switch (e.type) {
      case 'WebhookSubscriptionUpdated': {
        const { url, eventTypes, enabled, description } = e.data;
        const { description: _d, ...rest } = own;
        return { ...rest, url, eventTypes, enabled, ...(description !== undefined ? { description } : {}) };
      }
      case 'WebhookSecretRotated': {
        const { previousSealedSecret: _s, previousSecretValidUntil: _u, ...rest } = own;
        const until = e.data.previousValidUntil;
        return { ...rest, sealedSecret: e.data.sealedSecret, ...(until !== undefined ? { previousSealedSecret: doc.sealedSecret, previousSecretValidUntil: until } : {}) };
      }
      case 'WebhookSubscriptionPaused':
        return { ...own, paused: { reason: e.data.reason, deadLetters: e.data.deadLetters, at } };
      case 'WebhookSubscriptionResumed': {
        const { paused: _p, ...rest } = own;
        return { ...rest, deadLettersInARow: 0 };
      }
      case 'WebhookSubscriptionDeleted':
        return null;
      default:
        return own;
    }
  },
};
