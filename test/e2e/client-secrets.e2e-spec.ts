import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { sha256 } from '../../src/infrastructure/crypto/hashing.js';
import { EVENT_STORE, type EventStore } from '../../src/infrastructure/event-store/event-store.port.js';
import { SqliteEventStore } from '../../src/infrastructure/event-store/sqlite-event-store.js';
import { ProjectionRunner } from '../../src/infrastructure/read-store/projection-runner.js';
import { READ_STORE, type ReadStore } from '../../src/infrastructure/read-store/read-store.port.js';
import { ContractFetch } from '../support/contract-fetch.js';
import { basic } from '../support/rp.js';
import { SERVICE_SECRET, startTestServer, type TestServer } from '../support/server.js';

/**
 * Client secrets at rest: a client registered by an older version (ClientCreated version 1, a
 * bare SHA-256 of its secret) still authenticates, the bootstrap naming it again appends
 * nothing, and clients registered now are kept under a keyed hash only.
 */
const LEGACY_SECRET = 'legacy-secret-0123456789-0123456789-abcdef';
const BOOTSTRAP = `
tenants:
  - id: acme
    clients:
      - client_id: legacy
        client_secret: "${LEGACY_SECRET}"
        grant_types: [client_credentials]
        scope: "orders:read"
      - client_id: service
        client_secret: "${SERVICE_SECRET}"
        grant_types: [client_credentials]
        scope: "orders:read"
`;

/** The log as a server of the older version left it: the legacy client, its secret a bare SHA-256. */
async function olderLog(dataDir: string): Promise<void> {
  const store = new SqliteEventStore(join(dataDir, 'authserver.db'));
  await store.append(
    'client-acme.legacy',
    [
      {
        id: randomUUID(),
        type: 'ClientCreated',
        data: {
          tenantId: 'acme',
          clientId: 'legacy',
          secretHash: sha256(LEGACY_SECRET),
          redirectUris: [],
          postLogoutRedirectUris: [],
          grantTypes: ['client_credentials'],
          responseTypes: ['code'],
          scope: ['orders:read'],
          tokenEndpointAuthMethod: 'client_secret_basic',
          firstParty: false,
        },
        metadata: { tenantId: 'acme', actor: 'system', correlationId: randomUUID(), occurredAt: '2025-06-01T00:00:00.000Z', schemaVersion: 1 },
      },
    ],
    'no_stream',
  );
  await store.close();
}

let server: TestServer;
const contract = new ContractFetch();

beforeAll(async () => {
  server = await startTestServer(BOOTSTRAP, { seed: olderLog });
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  expect(contract.violations.splice(0)).toEqual([]);
});

const token = (clientId: string, secret: string) =>
  contract.fetch(`${server.issuer()}/token`, {
    method: 'POST',
    headers: { authorization: basic(clientId, secret), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });

async function allEvents(): Promise<string> {
  const events = server.app.get<EventStore>(EVENT_STORE);
  await server.app.get(ProjectionRunner).waitFor(['clients'], await events.headPosition());
  return JSON.stringify(await events.readAll());
}

describe('client secrets at rest', () => {
  it('authenticates a client whose secret an older version kept as a bare SHA-256', async () => {
    expect((await token('legacy', LEGACY_SECRET)).status).toBe(200);
    expect((await token('legacy', `${LEGACY_SECRET}x`)).status).toBe(401);
  });

  it('appends nothing when the bootstrap names that client again with its secret', async () => {
    const stream = await server.app.get<EventStore>(EVENT_STORE).readStream('client-acme.legacy');
    expect(stream.map((e) => [e.type, e.metadata.schemaVersion, (e.data as Record<string, unknown>).secretDigest])).toEqual([
      ['ClientCreated', 2, { scheme: 'sha256', hash: sha256(LEGACY_SECRET).slice('sha256:'.length) }],
    ]);
  });

  it('keeps the secret of a client registered now as a keyed hash: no SHA-256 of it in the log or the view', async () => {
    expect((await token('service', SERVICE_SECRET)).status).toBe(200);
    const [created] = await server.app.get<EventStore>(EVENT_STORE).readStream('client-acme.service');
    expect(created.metadata.schemaVersion).toBe(2);
    expect(created.data).toMatchObject({ secretDigest: { scheme: 'hmac-sha256' } });
    expect(created.data).not.toHaveProperty('secretHash');
    const bare = sha256(SERVICE_SECRET).slice('sha256:'.length);
    const log = await allEvents();
    expect(log).not.toContain(bare);
    expect(log).not.toContain(SERVICE_SECRET);
    const view = await server.app.get<ReadStore>(READ_STORE).get<Record<string, unknown>>('clients', 'acme/service');
    expect(view?.secretDigest).toEqual((created.data as Record<string, unknown>).secretDigest);
    expect(JSON.stringify(view)).not.toContain(bare);
  });
});
