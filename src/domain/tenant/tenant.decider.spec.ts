import { DomainError } from '../shared/domain-error.js';
import { tenantDecider } from './tenant.decider.js';

const settings = { securityProfile: 'baseline' as const, accessTokenTtl: 300, refreshTokenTtl: 86400, signingAlg: 'ES256' as const, refreshWithoutOfflineAccess: false };

describe('tenant decider', () => {
  it('creates a tenant once', () => {
    const events = tenantDecider.decide({ kind: 'CreateTenant', tenantId: 'acme', settings }, tenantDecider.initialState);
    expect(events).toEqual([{ type: 'TenantCreated', data: { tenantId: 'acme', ...settings } }]);
    const state = events.reduce(tenantDecider.evolve, tenantDecider.initialState);
    expect(tenantDecider.decide({ kind: 'CreateTenant', tenantId: 'acme', settings }, state)).toEqual([]);
  });

  it.each(['well-known', 'oauth', 'UPPER', 'a/b', ''])('rejects tenant id %p', (id) => {
    expect(() => tenantDecider.decide({ kind: 'CreateTenant', tenantId: id, settings }, tenantDecider.initialState)).toThrow(DomainError);
  });
});
