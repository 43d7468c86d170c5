import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { webhookKey, type WebhookSubscriptionView } from '../../projections/webhook-subscriptions.projection.js';
import { CONFIG, type Config } from '../config.js';
import { CommandPath } from '../central/command-path.js';
import { webhookDecider } from '../domain/webhook/webhook.decider.js';
import { streams } from '../domain/shared/stream-names.js';
import { DeliveryKinds, type DeliveryKind, type Gate, type Outcome, outcomeTypes, type RenderedRequest } from '../delivery/delivery-kind.js';
import type { Delivery } from '../delivery/delivery-store.js';
import { openWebhookSecret, webhookHeaders } from '../delivery/webhook-signature.js';
import { KeyEncryption } from '../infrastructure/crypto/key-encryption.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';
import { WEBHOOK, type WebhookDeliveryData, webhookDeliveryStream } from './webhook-delivery.js';
import { WebhookFollower } from './webhook-follower.js';

const VIEW = 'webhook_subscriptions';

/**
 * Webhooks as a delivery kind: each attempt is the event's CloudEvent JSON, signed as the
 * Standard Webhooks specification says with this attempt's timestamp, POSTed to the
 * subscription's URL as it stands. A paused or disabled subscription's deliveries are held;
 * a deleted one's are dropped. Dead letters in a row pause the subscription.
 */
@Injectable()
export class WebhookKind implements DeliveryKind<WebhookDeliveryData>, OnModuleInit {
  readonly kind = WEBHOOK;
  readonly outcomeTypes = outcomeTypes('Webhook');
  private readonly pauseAfter: number;

  constructor(
    @Inject(CONFIG) config: Config,
    @Inject(DeliveryKinds) private readonly kinds: DeliveryKinds,
    @Inject(WebhookFollower) private readonly follower: WebhookFollower,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
    @Inject(ProjectionRunner) private readonly runner: ProjectionRunner,
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(Clock) private readonly clock: Clock,
  ) {
    this.pauseAfter = config.delivery.webhookPauseAfter;
  }

  onModuleInit(): void {
    this.kinds.register(this, this.follower);
  }

  private subscription(d: Delivery<WebhookDeliveryData>): Promise<WebhookSubscriptionView | null> {
    return this.reads.get<WebhookSubscriptionView>(VIEW, webhookKey(d.tenantId, d.data.subscriptionId));
  }

  async gate(d: Delivery<WebhookDeliveryData>): Promise<Gate> {
    const s = await this.subscription(d);
    if (!s) return 'drop';
    return s.enabled && !s.paused ? 'send' : 'hold';
  }

  async render(d: Delivery<WebhookDeliveryData>): Promise<RenderedRequest> {
    const s = await this.subscription(d);
    if (!s) throw new Error('the subscription no longer exists');
    const now = this.clock.seconds();
    const secrets = [openWebhookSecret(this.keys, d.tenantId, s.subscriptionId, s.sealedSecret)];
    // In a rotation's grace period the previous secret signs too, so that receivers can move to the new one.
    if (s.previousSealedSecret !== undefined && now < (s.previousSecretValidUntil ?? 0)) secrets.push(openWebhookSecret(this.keys, d.tenantId, s.subscriptionId, s.previousSealedSecret));
    // Standard Webhooks: `webhook-id` is the event's id on every attempt (receivers drop repeats by it); the timestamp is this attempt's.
    const headers = webhookHeaders(secrets, d.data.eventId, now, d.data.body);
    return { url: s.url, headers: { 'content-type': 'application/json', ...headers }, body: d.data.body };
  }

  outcomeStream(d: Delivery<WebhookDeliveryData>): string {
    return webhookDeliveryStream(d.tenantId, d.deliveryId);
  }

  outcomeFields(d: Delivery<WebhookDeliveryData>): Record<string, unknown> {
    return { subscriptionId: d.data.subscriptionId, eventId: d.data.eventId, eventType: d.data.eventType };
  }

  represent(d: Delivery<WebhookDeliveryData>): Record<string, unknown> {
    return { subscription_id: d.data.subscriptionId, event_id: d.data.eventId, event_type: d.data.eventType, url: d.uri };
  }

  /** After a dead letter: `WEBHOOK_PAUSE_AFTER_DEAD_LETTERS` in a row (none delivered between) pause the subscription. */
  async afterOutcome(d: Delivery<WebhookDeliveryData>, outcome: Outcome, position: number): Promise<void> {
    if (outcome !== 'dead') return;
    await this.runner.waitFor([VIEW], position);
    const s = await this.subscription(d);
    if (!s || s.paused || s.deadLettersInARow < this.pauseAfter) return;
    const command = { kind: 'PauseWebhook' as const, reason: 'dead_letters' as const, deadLetters: s.deadLettersInARow };
    await this.path.run(streams.webhook(d.tenantId, s.subscriptionId), webhookDecider, command, { tenantId: d.tenantId, actor: 'system' }, [VIEW]);
  }
}
