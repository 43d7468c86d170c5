import { given, types } from '../shared/decider-spec.js';
import { type DeviceAuthorizationCommand, deviceAuthorizationDecider } from './device-authorization.decider.js';

const request: DeviceAuthorizationCommand = { kind: 'Request', tenantId: 't', clientId: 'tv', key: 'k', codeChallenge: 'c', scope: ['openid'], interval: 5, expiresAt: 700 };
const approve = (over: Partial<Extract<DeviceAuthorizationCommand, { kind: 'Approve' }>> = {}): DeviceAuthorizationCommand => ({ kind: 'Approve', tenantId: 't', key: 'k', userId: 'alice', sessionId: 's', codeHash: 'h', now: 100, ...over });
const deny: DeviceAuthorizationCommand = { kind: 'Deny', tenantId: 't', key: 'k', userId: 'alice', now: 100 };
const requested = given(deviceAuthorizationDecider).after(request);

describe('device authorization decider', () => {
  it('is answered once, before it expires, at its own tenant', () => {
    const s = given(deviceAuthorizationDecider, requested);
    expect(types(s.when(approve()))).toEqual(['DeviceAuthorizationApproved']);
    expect(types(s.when(deny))).toEqual(['DeviceAuthorizationDenied']);
    expect(given(deviceAuthorizationDecider, s.after(approve())).refused(deny)).toBe('already_exists');
    expect(given(deviceAuthorizationDecider, s.after(deny)).refused(approve())).toBe('already_exists');
    expect(s.refused(approve({ now: 700 }))).toBe('not_found');
    expect(s.refused(approve({ tenantId: 'u' }))).toBe('not_found');
  });

  it('refuses an answer to nothing, and a second request under the same user code', () => {
    expect(given(deviceAuthorizationDecider).refused(approve())).toBe('not_found');
    expect(given(deviceAuthorizationDecider, requested).refused(request)).toBe('already_exists');
  });
});
