import type { RecordedEvent } from './event-store.port.js';
import { schemaVersionOf, upcast } from './upcasters.js';

const recorded = (type: string, data: unknown, schemaVersion: number): RecordedEvent => ({
  id: '00000000-0000-4000-8000-000000000000',
  type,
  data,
  streamId: 's',
  revision: 0,
  position: 1,
  metadata: { actor: 'system', correlationId: 'c', occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion },
});

const V1_CLIENT = { tenantId: 'acme', clientId: 'web', secretHash: 'sha256:abc', redirectUris: [], grantTypes: ['client_credentials'], tokenEndpointAuthMethod: 'client_secret_basic' };

describe('upcasters', () => {
  it('turns a version 1 ClientCreated with a bare SHA-256 into a digest that names its scheme', () => {
    const old = recorded('ClientCreated', V1_CLIENT, 1);
    const { secretHash: _, ...rest } = V1_CLIENT;
    expect(upcast(old)).toEqual({ ...old, data: { ...rest, secretDigest: { scheme: 'sha256', hash: 'abc' } }, metadata: { ...old.metadata, schemaVersion: 2 } });
    // The stored event is left as it was.
    expect(old.data).toBe(V1_CLIENT);
  });

  it('leaves a public client of version 1 without a digest', () => {
    const { secretHash: _, ...publicClient } = V1_CLIENT;
    expect(upcast(recorded('ClientCreated', { ...publicClient, tokenEndpointAuthMethod: 'none' }, 1)).data).not.toHaveProperty('secretDigest');
  });

  it('turns the security profile `strict` of version 1 tenant events into fapi2-security, and leaves baseline as it was', () => {
    const settings = { tenantId: 'acme', securityProfile: 'strict', accessTokenTtl: 300, refreshTokenTtl: 86400, signingAlg: 'ES256', refreshWithoutOfflineAccess: false };
    for (const type of ['TenantCreated', 'TenantSettingsChanged']) {
      const old = recorded(type, settings, 1);
      expect(upcast(old)).toEqual({ ...old, data: { ...settings, securityProfile: 'fapi2-security' }, metadata: { ...old.metadata, schemaVersion: 2 } });
      expect((upcast(recorded(type, { ...settings, securityProfile: 'baseline' }, 1)).data as { securityProfile: string }).securityProfile).toBe('baseline');
    }
    // The stored event is left as it was.
    expect(settings.securityProfile).toBe('strict');
    const defaults = recorded('SystemSettingsChanged', { tenantDefaults: { securityProfile: 'strict', accessTokenTtl: 60 } }, 1);
    expect(upcast(defaults).data).toEqual({ tenantDefaults: { securityProfile: 'fapi2-security', accessTokenTtl: 60 } });
  });

  it('hands back events already in the newest shape, and of types never reshaped, as they are', () => {
    const current = recorded('ClientCreated', { clientId: 'web', secretDigest: { scheme: 'hmac-sha256', hash: 'x' } }, 2);
    expect(upcast(current)).toBe(current);
    const other = recorded('SessionStarted', { tenantId: 'acme' }, 1);
    expect(upcast(other)).toBe(other);
    const proto = recorded('constructor', {}, 1);
    expect(upcast(proto)).toBe(proto);
  });

  it('writes each type at its current version', () => {
    expect(schemaVersionOf('ClientCreated')).toBe(2);
    expect(schemaVersionOf('SessionStarted')).toBe(1);
    expect(schemaVersionOf('toString')).toBe(1);
  });
});
