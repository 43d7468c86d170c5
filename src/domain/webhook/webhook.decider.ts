import { INTEGRATION_EVENT_TYPES } from '../../feed/integration-events.js';
import { ITEM_ID } from '../resource/resource.decider.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { WebhookDefinition, WebhookEvent, WebhookPauseReason } from './webhook.events.js';

export type WebhookCommand =
  | { kind: 'CreateWebhook'; tenantId: string; definition: WebhookDefinition; sealedSecret: string }
  | { kind: 'UpdateWebhook'; tenantId: string; definition: WebhookDefinition }
  | { kind: 'RotateWebhookSecret'; sealedSecret: string; previousValidUntil: number }
  | { kind: 'PauseWebhook'; reason: WebhookPauseReason; deadLetters: number }
  | { kind: 'ResumeWebhook' }
  | { kind: 'ReplayWebhook'; after: number }
  | { kind: 'DeleteWebhook' };

export interface WebhookState {
  tenantId?: string;
  definition?: WebhookDefinition;
  paused?: boolean;
  deleted?: boolean;
}

export const ALL_EVENT_TYPES = '*';
const MAX_URL = 2000;

function validate(d: WebhookDefinition): void {
  const fail = (m: string): never => {
    throw new DomainError('invalid_value', `webhook ${d.subscriptionId}: ${m}`);
  };
  if (!ITEM_ID.test(d.subscriptionId)) fail('id must be 1-128 unreserved characters or ":"');
  if (d.url.length > MAX_URL || !URL.canParse(d.url)) fail('url must be an absolute URL');
  const url = new URL(d.url);
  // Only an administrator registers subscriptions, so any host is taken (internal services live on private networks); never another scheme.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail('url must be http or https');
  if (url.username || url.password) fail('url must not carry credentials');
  if (url.hash) fail('url must not have a fragment');
  if (!d.eventTypes.length) fail(`event_types must name at least one type, or be ["${ALL_EVENT_TYPES}"]`);
  if (d.eventTypes.includes(ALL_EVENT_TYPES) && d.eventTypes.length > 1) fail(`event_types: "${ALL_EVENT_TYPES}" stands alone`);
  const unknown = d.eventTypes.filter((t) => t !== ALL_EVENT_TYPES && !(INTEGRATION_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length) fail(`event_types ${unknown.join(', ')} are not feed event types (known: ${INTEGRATION_EVENT_TYPES.join(', ')})`);
}

/** One webhook subscription of a tenant, on `webhook-<tenant>.<id>`. */
export const webhookDecider: Decider<WebhookCommand, WebhookEvent, WebhookState> = {
  initialState: {},
  decide(command, state) {
    const live = state.definition && !state.deleted && state.tenantId ? { tenantId: state.tenantId, subscriptionId: state.definition.subscriptionId } : undefined;
    switch (command.kind) {
      case 'CreateWebhook':
        validate(command.definition);
        if (live) throw new DomainError('already_exists', `a webhook ${command.definition.subscriptionId} exists`);
        return [{ type: 'WebhookSubscriptionCreated', data: { tenantId: command.tenantId, ...command.definition, sealedSecret: command.sealedSecret } }];
      case 'UpdateWebhook':
        if (!live) throw new DomainError('not_found', 'no such webhook');
        validate(command.definition);
        return [{ type: 'WebhookSubscriptionUpdated', data: { tenantId: command.tenantId, ...command.definition } }];
      case 'RotateWebhookSecret':
        if (!live) throw new DomainError('not_found', 'no such webhook');
        return [{ type: 'WebhookSecretRotated', data: { ...live, sealedSecret: command.sealedSecret, previousValidUntil: command.previousValidUntil } }];
      case 'PauseWebhook':
        // Asked by the sender after a dead letter: a gone or already paused subscription needs nothing.
        if (!live || state.paused) return [];
        return [{ type: 'WebhookSubscriptionPaused', data: { ...live, reason: command.reason, deadLetters: command.deadLetters } }];
      case 'ResumeWebhook':
        if (!live) throw new DomainError('not_found', 'no such webhook');
        if (!state.paused) return [];
        return [{ type: 'WebhookSubscriptionResumed', data: live }];
      case 'ReplayWebhook':
        if (!live) throw new DomainError('not_found', 'no such webhook');
        if (!Number.isSafeInteger(command.after) || command.after < 0) throw new DomainError('invalid_value', 'after must be a feed cursor');
        return [{ type: 'WebhookReplayRequested', data: { ...live, after: command.after } }];
      case 'DeleteWebhook':
        if (!live) throw new DomainError('not_found', 'no such webhook');
        return [{ type: 'WebhookSubscriptionDeleted', data: live }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookSubscriptionCreated': {
        const { tenantId, sealedSecret: _s, ...definition } = event.data;
        return { tenantId, definition };
      }
      case 'WebhookSubscriptionUpdated': {
        const { tenantId, ...definition } = event.data;
        return { ...state, tenantId, definition };
      }
      case 'WebhookSubscriptionPaused':
        return { ...state, paused: true };
      case 'WebhookSubscriptionResumed':
        return { ...state, paused: false };
      case 'WebhookSubscriptionDeleted':
        return { ...state, deleted: true };
      case 'WebhookSecretRotated':
      case 'WebhookReplayRequested':
        return state;
      default:
        return assertNever(event);
    }
  },
};
