import { given } from '../shared/decider-spec.js';
import { loginFailureDecider } from './login-failure.decider.js';

describe('login failure decider', () => {
  it("records a wrong password against the user, and an unknown username by its hash with the failures left out before it", () => {
    expect(given(loginFailureDecider).when({ kind: 'RecordBadPassword', tenantId: 't', clientId: 'web', userId: 'u' })).toEqual([
      { type: 'LoginFailed', data: { tenantId: 't', clientId: 'web', reason: 'bad_password', userId: 'u' } },
    ]);
    const unknown = { kind: 'RecordUnknownUsername' as const, tenantId: 't', clientId: 'web', usernameHash: 'hmac-sha256:x' };
    expect(given(loginFailureDecider).when(unknown)).toEqual([{ type: 'LoginFailed', data: { tenantId: 't', clientId: 'web', reason: 'unknown_user', usernameHash: 'hmac-sha256:x' } }]);
    expect(given(loginFailureDecider).when({ ...unknown, unrecordedBefore: 3 })).toEqual([
      { type: 'LoginFailed', data: { tenantId: 't', clientId: 'web', reason: 'unknown_user', usernameHash: 'hmac-sha256:x', unrecordedBefore: 3 } },
    ]);
    expect(given(loginFailureDecider).when({ ...unknown, unrecordedBefore: 0 })[0].data).not.toHaveProperty('unrecordedBefore');
  });
});
