import { given } from '../shared/decider-spec.js';
import { type PushedRequestCommand, pushedRequestDecider } from './pushed-request.decider.js';
import type { PushedRequestEvent } from './pushed-request.events.js';

const request = { redirectUri: 'https://rp/cb', responseMode: 'query' as const, scope: ['openid'], codeChallenge: 'c'.repeat(43), codeChallengeMethod: 'S256' as const, prompt: [] };
const push: PushedRequestCommand = { kind: 'Push', tenantId: 't', clientId: 'web', requestUriHash: 'h', expiresAt: 160, request };
const use = (over: Partial<Extract<PushedRequestCommand, { kind: 'Use' }>> = {}): PushedRequestCommand => ({ kind: 'Use', tenantId: 't', clientId: 'web', requestUriHash: 'h', now: 100, ...over });
const pushed: PushedRequestEvent[] = given(pushedRequestDecider).after(push);

describe('pushed request decider', () => {
  it('is used once, by the client that pushed it, before it expires', () => {
    const s = given(pushedRequestDecider, pushed);
    expect(s.when(use())).toEqual([{ type: 'PushedRequestUsed', data: { tenantId: 't', clientId: 'web', requestUriHash: 'h', at: 100 } }]);
    expect(given(pushedRequestDecider, s.after(use())).refused(use())).toBe('not_found');
    expect(s.refused(use({ clientId: 'other' }))).toBe('client_mismatch');
    expect(s.refused(use({ now: 160 }))).toBe('not_found');
    expect(s.refused(use({ tenantId: 'u' }))).toBe('not_found');
  });

  it('refuses an unknown request_uri, and a second push under the same one', () => {
    expect(given(pushedRequestDecider).refused(use())).toBe('not_found');
    expect(given(pushedRequestDecider, pushed).refused(push)).toBe('already_exists');
  });
});
