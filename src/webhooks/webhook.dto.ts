import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import type { WebhookSubscriptionView } from '../../projections/webhook-subscriptions.projection.js';
import { ITEM_ID_MESSAGE, ITEM_ID_PATTERN } from '../central/resources/resource.dto.js';
import { ALL_EVENT_TYPES } from '../domain/webhook/webhook.decider.js';
import type { WebhookDefinition } from '../domain/webhook/webhook.events.js';
import { INTEGRATION_EVENT_TYPES } from '../feed/integration-events.js';

/** A webhook subscription as the admin API takes it. */
export class WebhookDto {
  /** Chosen by the server when absent. */
  @IsOptional()
  @IsString()
  @Matches(ITEM_ID_PATTERN, { message: `id ${ITEM_ID_MESSAGE}` })
  id?: string;

  @IsString()
  @Length(1, 2000)
  url!: string;

  /** The feed's event types it receives, or `["*"]` (the default) for all. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(INTEGRATION_EVENT_TYPES.length)
  @IsString({ each: true })
  event_types?: string[];

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @IsOptional()
  @IsString()
  @Length(1, 500)
  description?: string;
}

/** The seconds a rotated secret's predecessor still signs, beside it, when a rotation does not say. */
export const DEFAULT_SECRET_GRACE_SECONDS = 24 * 3600;
export const MAX_SECRET_GRACE_SECONDS = 7 * 24 * 3600;

/** The body of a secret rotation (optional): how long the previous secret still signs. */
export class WebhookSecretRotationDto {
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_SECRET_GRACE_SECONDS)
  grace_period?: number;
}

/** A replay: the feed cursor after which the subscription's events are sent again. */
export class WebhookReplayDto {
  @IsString()
  @Matches(/^\d{1,15}$/, { message: 'after must be a feed cursor (the `cursor` of an event, or "0" for the start)' })
  after!: string;
}

export function webhookDefinitionOf(dto: WebhookDto, subscriptionId: string): WebhookDefinition {
  return {
    subscriptionId,
    url: dto.url,
    eventTypes: [...new Set(dto.event_types ?? [ALL_EVENT_TYPES])],
    enabled: dto.enabled ?? true,
    ...(dto.description !== undefined ? { description: dto.description } : {}),
  };
}

export type WebhookStatus = 'active' | 'paused' | 'disabled';

export function webhookStatus(s: WebhookSubscriptionView): WebhookStatus {
  if (s.paused) return 'paused';
  return s.enabled ? 'active' : 'disabled';
}

/** Never the secret (it is shown once, at creation and rotation). */
export function webhookRepresentation(s: WebhookSubscriptionView): Record<string, unknown> {
  return {
    id: s.subscriptionId,
    url: s.url,
    event_types: s.eventTypes,
    enabled: s.enabled,
    ...(s.description !== undefined ? { description: s.description } : {}),
    status: webhookStatus(s),
    ...(s.paused ? { paused_reason: s.paused.reason, paused_at: s.paused.at } : {}),
    dead_letters_in_a_row: s.deadLettersInARow,
    ...(s.lastDeliveredAt !== undefined ? { last_delivered_at: s.lastDeliveredAt } : {}),
    ...(s.lastDeadLetterAt !== undefined ? { last_dead_letter_at: s.lastDeadLetterAt } : {}),
    ...(s.previousSecretValidUntil !== undefined ? { previous_secret_valid_until: s.previousSecretValidUntil } : {}),
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

/** Fields the server sets: not part of what a patch edits. */
export const WEBHOOK_READ_ONLY = ['status', 'paused_reason', 'paused_at', 'dead_letters_in_a_row', 'last_delivered_at', 'last_dead_letter_at', 'previous_secret_valid_until'];
