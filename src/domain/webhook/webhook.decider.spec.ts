import { givenFor, types } from '../shared/decider-spec.js';
import { webhookDecider } from './webhook.decider.js';
import type { WebhookEvent } from './webhook.events.js';

const given = givenFor(webhookDecider);
const definition = { subscriptionId: 'w1', url: 'https://hooks.example.com/in', eventTypes: ['*'], enabled: true };
const created: WebhookEvent = { type: 'WebhookSubscriptionCreated', data: { tenantId: 't', ...definition, sealedSecret: 'sealed' } };
const paused: WebhookEvent = { type: 'WebhookSubscriptionPaused', data: { tenantId: 't', subscriptionId: 'w1', reason: 'dead_letters', deadLetters: 5 } };

describe('webhook decider', () => {
  it('creates a subscription once, with its sealed secret', () => {
    expect(given().when({ kind: 'CreateWebhook', tenantId: 't', definition, sealedSecret: 'sealed' })).toEqual([created]);
    expect(given([created]).refused({ kind: 'CreateWebhook', tenantId: 't', definition, sealedSecret: 'x' })).toBe('already_exists');
  });

  it('takes http and https on any host; refuses other schemes, credentials, fragments and unknown event types', () => {
    const create = (change: Partial<typeof definition>) => given().refused({ kind: 'CreateWebhook', tenantId: 't', definition: { ...definition, ...change }, sealedSecret: 's' });
    expect(create({ url: 'http://10.0.0.7:8080/hook' })).toBe('no error');
    expect(create({ url: 'http://hooks.example.com/in', eventTypes: ['session.revoked', 'user.deleted'] })).toBe('no error');
    for (const url of ['ftp://hooks.example.com/in', 'javascript:alert(1)', 'https://user:pw@hooks.example.com/in', 'https://hooks.example.com/in#x', '/relative']) {
      expect([url, create({ url })]).toEqual([url, 'invalid_value']);
    }
    expect(create({ eventTypes: ['session.ended'] })).toBe('invalid_value');
    expect(create({ eventTypes: ['*', 'user.deleted'] })).toBe('invalid_value');
    expect(create({ eventTypes: [] })).toBe('invalid_value');
  });

  it('pauses once (the server asks after each dead letter), resumes only a paused one, and forgets a deleted one', () => {
    const pause = { kind: 'PauseWebhook' as const, reason: 'dead_letters' as const, deadLetters: 5 };
    expect(given([created]).when(pause)).toEqual([paused]);
    expect(given([created, paused]).when(pause)).toEqual([]);
    expect(types(given([created, paused]).when({ kind: 'ResumeWebhook' }))).toEqual(['WebhookSubscriptionResumed']);
    expect(given([created]).when({ kind: 'ResumeWebhook' })).toEqual([]);
    const deleted: WebhookEvent = { type: 'WebhookSubscriptionDeleted', data: { tenantId: 't', subscriptionId: 'w1' } };
    expect(given([created, deleted]).when(pause)).toEqual([]);
    expect(given([created, deleted]).refused({ kind: 'ReplayWebhook', after: 0 })).toBe('not_found');
    expect(types(given([created, deleted]).when({ kind: 'CreateWebhook', tenantId: 't', definition, sealedSecret: 's2' }))).toEqual(['WebhookSubscriptionCreated']);
  });

  it('records a replay request from a cursor', () => {
    expect(given([created]).when({ kind: 'ReplayWebhook', after: 42 })).toEqual([{ type: 'WebhookReplayRequested', data: { tenantId: 't', subscriptionId: 'w1', after: 42 } }]);
    expect(given([created]).refused({ kind: 'ReplayWebhook', after: -1 })).toBe('invalid_value');
  });
});
