/**
 * A log written before the security profiles: a tenant created and changed with the profile
 * `strict` is served as `fapi2-security` (tenant.upcasters.ts), as its discovery document shows, while the stored events stay as they were.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/infrastructure/event-store/sqlite-event-store.js';
import { ContractFetch } from '../support/contract-fetch.js';
import { RelyingParty } from '../support/rp.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SETTINGS = { tenantId: 'legacy', securityProfile: 'strict', accessTokenTtl: 300, refreshTokenTtl: 86400, signingAlg: 'ES256', refreshWithoutOfflineAccess: false };
const meta = () => ({ tenantId: 'legacy', actor: 'system', correlationId: randomUUID(), occurredAt: '2025-06-01T00:00:00.000Z', schemaVersion: 1 });

async function olderLog(dataDir: string): Promise<void> {
  const store = new SqliteEventStore(join(dataDir, 'authserver.db'));
  await store.append(
    'tenant-legacy',
    [
      { id: randomUUID(), type: 'TenantCreated', data: SETTINGS, metadata: meta() },
      { id: randomUUID(), type: 'TenantSettingsChanged', data: { ...SETTINGS, accessTokenTtl: 600 }, metadata: meta() },
    ],
    'no_stream',
  );
  await store.close();
}

let server: TestServer;
const contract = new ContractFetch();

beforeAll(async () => {
  server = await startTestServer(undefined, { seed: olderLog });
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  expect(contract.violations.splice(0)).toEqual([]);
});

it('serves a tenant whose log says `strict` as fapi2-security, and keeps the stored events as written', async () => {
  const legacy = await RelyingParty.discover(server, contract, 'legacy');
  // fapi2-security exactly: not the strictest profile an unknown name would get.
  expect(legacy.as).toMatchObject({ code_challenge_methods_supported: ['S256'], require_pushed_authorization_requests: true, token_endpoint_auth_methods_supported: ['private_key_jwt'], require_signed_request_object: false, response_modes_supported: ['query', 'form_post', 'jwt', 'query.jwt', 'form_post.jwt'] });
  const store = new SqliteEventStore(join(server.dataDir, 'authserver.db'));
  try {
    const stored = await store.readStream('tenant-legacy');
    expect(stored.map((e) => [(e.data as { securityProfile: string }).securityProfile, e.metadata.schemaVersion])).toEqual([['strict', 1], ['strict', 1]]);
  } finally {
    await store.close();
  }
});
