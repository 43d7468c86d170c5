import { givenFor } from '../shared/decider-spec.js';
import { DomainError } from '../shared/domain-error.js';
import { tenantsProjection } from '../../../projections/tenants.projection.js';
import { tenantDecider } from './tenant.decider.js';
import { DEFAULT_SESSION_IDLE_TIMEOUT, DEFAULT_SESSION_MAX_AGE } from './tenant.events.js';

const settings = { securityProfile: 'baseline' as const, accessTokenTtl: 300, refreshTokenTtl: 86400, signingAlg: 'ES256' as const, refreshWithoutOfflineAccess: false };

const given = givenFor(tenantDecider);

describe('tenant decider', () => {
  it('creates a tenant once', () => {
    const create = { kind: 'CreateTenant' as const, tenantId: 'acme', settings };
    expect(given().when(create)).toEqual([{ type: 'TenantCreated', data: { tenantId: 'acme', ...settings } }]);
    expect(given(given().after(create)).when(create)).toEqual([]);
  });

  it.each(['well-known', 'oauth', 'UPPER', 'a/b', ''])('rejects tenant id %p', (id) => {
    expect(() => given().when({ kind: 'CreateTenant', tenantId: id, settings })).toThrow(DomainError);
    expect(given().refused({ kind: 'CreateTenant', tenantId: id, settings })).toBe('invalid_value');
  });

  it.each([0, -5, 1.5])('rejects session_max_age and session_idle_timeout %p', (value) => {
    const create = (over: object) => () => given().when({ kind: 'CreateTenant', tenantId: 'acme', settings: { ...settings, ...over } });
    expect(create({ sessionMaxAge: value })).toThrow('session_max_age must be a positive integer');
    expect(create({ sessionIdleTimeout: value })).toThrow('session_idle_timeout must be a positive integer');
  });

  it('refuses a signing_alg that its security profile does not allow, and a profile it does not know', () => {
    const create = (over: object) => () => given().when({ kind: 'CreateTenant', tenantId: 'acme', settings: { ...settings, ...over } });
    expect(create({ securityProfile: 'fapi2-security', signingAlg: 'RS256' })).toThrow('signing_alg RS256 is not allowed by the security profile fapi2-security');
    expect(create({ securityProfile: 'strict' })).toThrow('security_profile must be one of baseline, fapi2-security, fapi2-message-signing');
    const fapi = given().after({ kind: 'CreateTenant', tenantId: 'acme', settings: { ...settings, securityProfile: 'fapi2-security' } });
    expect(given(fapi).refused({ kind: 'ChangeTenantSettings', settings: { ...settings, securityProfile: 'fapi2-security', signingAlg: 'RS256' } })).toBe('invalid_value');
    expect(given(fapi).when({ kind: 'ChangeTenantSettings', settings: { ...settings, signingAlg: 'RS256' } })).toHaveLength(1);
  });

  it('reads a tenant created before session_max_age and session_idle_timeout existed with the defaults', () => {
    const created = { id: 'e', type: 'TenantCreated', streamId: 'tenant-acme', revision: 0, position: 1, data: { tenantId: 'acme', ...settings } };
    const doc = tenantsProjection.apply(null, { ...created, metadata: { actor: 'system', correlationId: 'c', occurredAt: '2026-01-01T00:00:00Z' } }, 'acme');
    expect(doc).toMatchObject({ sessionMaxAge: DEFAULT_SESSION_MAX_AGE, sessionIdleTimeout: DEFAULT_SESSION_IDLE_TIMEOUT });
  });
});
