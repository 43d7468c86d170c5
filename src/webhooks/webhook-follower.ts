import { Inject, Injectable } from '@nestjs/common';
import { webhookKey, type WebhookSubscriptionView } from '../../projections/webhook-subscriptions.projection.js';
import { CONFIG, type Config } from '../config.js';
import { ALL_EVENT_TYPES } from '../domain/webhook/webhook.decider.js';
import type { DeliveryFollowerSpec } from '../delivery/delivery-kind.js';
import { type Delivery, DeliveryStore } from '../delivery/delivery-store.js';
import { FEED_SOURCE_TYPES, type IntegrationEvent, integrationEvent, tenantOf } from '../feed/integration-events.js';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../infrastructure/event-store/event-store.port.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';
import { Directory } from '../shared/directory.js';
import { WEBHOOK, type WebhookDeliveryData, webhookDeliveryId } from './webhook-delivery.js';

const VIEW = 'webhook_subscriptions';
/** Events that may release a subscription's held deliveries (resumed, or enabled again). */
const RELEASING = ['WebhookSubscriptionResumed', 'WebhookSubscriptionUpdated'];
const REPLAY = 'WebhookReplayRequested';
const SCAN_PAGE = 500;

const sendable = (s: WebhookSubscriptionView) => s.enabled && !s.paused;
const wants = (s: WebhookSubscriptionView, type: string) => s.eventTypes.includes(ALL_EVENT_TYPES) || s.eventTypes.includes(type);

/**
 * Which events make webhook deliveries: each integration event of the feed becomes one
 * delivery per enabled subscription of its tenant that takes its type (held while the
 * subscription is paused); a subscription resumed or enabled again has its held deliveries
 * released; a replay request makes deliveries again of the subscription's events after a cursor.
 */
@Injectable()
export class WebhookFollower implements DeliveryFollowerSpec {
  readonly checkpoint = 'webhook_follower';
  readonly eventTypes = [...FEED_SOURCE_TYPES, ...RELEASING, REPLAY];
  readonly views = [VIEW];
  private readonly replayMax: number;

  constructor(
    @Inject(CONFIG) config: Config,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(Directory) private readonly directory: Directory,
  ) {
    this.replayMax = config.delivery.webhookReplayMax;
  }

  async deliveriesOf(batch: readonly RecordedEvent[], now: Date): Promise<Delivery[]> {
    const out: Delivery[] = [];
    const subscriptions = new Map<string, WebhookSubscriptionView[]>();
    const ofTenant = async (tenantId: string) => {
      let found = subscriptions.get(tenantId);
      if (!found) subscriptions.set(tenantId, (found = await this.reads.find<WebhookSubscriptionView>(VIEW, { tenantId })));
      return found;
    };
    for (const e of batch) {
      const data = e.data as { tenantId: string; subscriptionId: string; after?: number };
      if (RELEASING.includes(e.type)) {
        out.push(...(await this.released(data.tenantId, data.subscriptionId, now)));
        continue;
      }
      if (e.type === REPLAY) {
        out.push(...(await this.replayed(e, data.tenantId, data.subscriptionId, data.after ?? 0, now)));
        continue;
      }
      const tenantId = tenantOf(e);
      if (!tenantId) continue;
      const subs = (await ofTenant(tenantId)).filter((s) => s.enabled && s.since < e.position);
      if (!subs.length) continue;
      const event = integrationEvent(e, this.directory.issuer(tenantId));
      if (!event) continue;
      for (const s of subs) if (wants(s, event.type)) out.push(this.delivery(s, event, e, now));
    }
    return out;
  }

  private delivery(s: WebhookSubscriptionView, event: IntegrationEvent, cause: RecordedEvent, now: Date, replayOf?: RecordedEvent): Delivery<WebhookDeliveryData> {
    return {
      tenantId: s.tenantId,
      deliveryId: webhookDeliveryId(event.id, s.subscriptionId, replayOf?.id),
      kind: WEBHOOK,
      receiverId: s.subscriptionId,
      uri: s.url,
      data: { subscriptionId: s.subscriptionId, eventId: event.id, eventType: event.type, body: JSON.stringify(event) },
      cause: replayOf ? replayOf.type : cause.type,
      causeEventId: replayOf ? replayOf.id : cause.id,
      status: sendable(s) ? 'pending' : 'held',
      attempts: 0,
      nextAttemptAt: now.getTime(),
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
  }

  /** The held deliveries of a subscription that may be sent again, with a fresh retry window. */
  private async released(tenantId: string, subscriptionId: string, now: Date): Promise<Delivery[]> {
    const s = await this.reads.get<WebhookSubscriptionView>(VIEW, webhookKey(tenantId, subscriptionId));
    if (!s || !sendable(s)) return [];
    const held = await this.store.held(tenantId, WEBHOOK, subscriptionId);
    return held.map(({ firstAttemptAt: _f, ...d }) => ({ ...d, status: 'pending' as const, nextAttemptAt: now.getTime(), updatedAt: now.toISOString() }));
  }

  /** The subscription's events after `after` and before the request, up to WEBHOOK_REPLAY_MAX of them, as new deliveries. */
  private async replayed(request: RecordedEvent, tenantId: string, subscriptionId: string, after: number, now: Date): Promise<Delivery[]> {
    const s = await this.reads.get<WebhookSubscriptionView>(VIEW, webhookKey(tenantId, subscriptionId));
    if (!s) return [];
    const issuer = this.directory.issuer(tenantId);
    const out: Delivery[] = [];
    let next = after;
    for (;;) {
      const page = await this.events.readAll({ afterPosition: next, maxCount: SCAN_PAGE, filter: { eventTypes: FEED_SOURCE_TYPES } });
      for (const e of page) {
        if (e.position >= request.position || out.length >= this.replayMax) return out;
        next = e.position;
        if (tenantOf(e) !== tenantId) continue;
        const event = integrationEvent(e, issuer);
        if (event && wants(s, event.type)) out.push(this.delivery(s, event, e, now, request));
      }
      if (page.length < SCAN_PAGE) return out;
    }
  }
}
