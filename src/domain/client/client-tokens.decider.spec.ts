import { given } from '../shared/decider-spec.js';
import { clientTokensDecider } from './client-tokens.decider.js';

describe('client tokens decider', () => {
  it("revokes a client's own token; another client's attempt is refused and recorded on the owner's stream (RFC 7009 §2.1)", () => {
    const revoke = { kind: 'RevokeClientToken' as const, tenantId: 't', jti: 'j1', clientId: 'svc', owner: 'svc' };
    expect(given(clientTokensDecider).when(revoke)).toEqual([{ type: 'TokenRevoked', data: { tenantId: 't', clientId: 'svc', tokenType: 'access_token', jti: 'j1', reason: 'revocation_request' } }]);
    expect(given(clientTokensDecider).when({ ...revoke, clientId: 'other' })).toEqual([
      { type: 'RevocationRefused', data: { tenantId: 't', clientId: 'svc', presentedBy: 'other', tokenType: 'access_token', jti: 'j1' } },
    ]);
  });

  it('records a failed authentication with its reason, and the failures left unrecorded before it when there were any', () => {
    const failure = { kind: 'RecordAuthenticationFailure' as const, tenantId: 't', clientId: 'svc', endpoint: 'token' as const, method: 'client_secret_basic' as const, wrongMethod: false };
    expect(given(clientTokensDecider).when(failure)).toEqual([
      { type: 'ClientAuthenticationFailed', data: { tenantId: 't', clientId: 'svc', endpoint: 'token', method: 'client_secret_basic', reason: 'wrong_secret' } },
    ]);
    expect(given(clientTokensDecider).when({ ...failure, method: 'client_secret_post', wrongMethod: true, unrecordedBefore: 7 })).toEqual([
      { type: 'ClientAuthenticationFailed', data: { tenantId: 't', clientId: 'svc', endpoint: 'token', method: 'client_secret_post', reason: 'wrong_method', unrecordedBefore: 7 } },
    ]);
  });

  it('decides from the command alone, whatever the stream holds', () => {
    expect(clientTokensDecider.stateless).toBe(true);
    const issued = { type: 'TokenRevoked' as const, data: { tenantId: 't', clientId: 'svc', tokenType: 'access_token' as const, jti: 'j0', reason: 'revocation_request' } };
    expect(given(clientTokensDecider, [issued]).state).toBeNull();
  });
});
