import { generateKeyPairSync } from 'node:crypto';
import type { Directory } from '../../shared/directory.js';
import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp-dir.js';
import type { ClientCreated, ClientRegistration } from '../../domain/client/client.events.js';
import { ClientSecrets } from '../../infrastructure/crypto/client-secrets.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { SqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import type { ProjectionRunner } from '../../infrastructure/read-store/projection-runner.js';
import { CreateClient, CreateClientHandler } from './create-client.command.js';

class FixedClock extends Clock {
  now(): Date {
    return new Date('2026-01-01T00:00:00.000Z');
  }
}

const registration: Omit<ClientRegistration, 'secretDigest'> = {
  clientId: 'api',
  redirectUris: [],
  postLogoutRedirectUris: [],
  grantTypes: ['client_credentials'],
  responseTypes: ['code'],
  scope: ['orders:read'],
  tokenEndpointAuthMethod: 'client_secret_basic',
  firstParty: false,
};

describe('CreateClient', () => {
  let events: SqliteEventStore;
  let handler: CreateClientHandler;
  const secrets = new ClientSecrets(KeyEncryption.load(Buffer.alloc(32, 3).toString('base64'), '.'));
  beforeEach(() => {
    events = new SqliteEventStore(join(tempDir('create-client-'), 'e.db'));
    const views = { waitFor: async () => undefined } as unknown as ProjectionRunner;
    const directory = { tenant: async (id: string) => ({ securityProfile: id === 'fapi' ? 'fapi2-security' : 'baseline' }) } as unknown as Directory;
    handler = new CreateClientHandler(new AggregateStore(events), views, new FixedClock(), secrets, directory);
  });
  afterEach(() => events.close());

  const created = async (clientId: string) => (await events.readStream(`client-acme.${clientId}`))[0] as unknown as ClientCreated;

  it('refuses a client that the tenant\'s security profile could never serve, and takes it at a baseline tenant', async () => {
    await expect(handler.execute(new CreateClient('fapi', registration, undefined, 'admin:1'))).rejects.toThrow(/token_endpoint_auth_method client_secret_basic is not allowed by the security profile fapi2-security/);
    const keyed = { ...registration, tokenEndpointAuthMethod: 'private_key_jwt' as const, idTokenSignedResponseAlg: 'RS256' as const, jwks: { keys: [generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as { kty: string }] } };
    await expect(handler.execute(new CreateClient('fapi', keyed, undefined, 'admin:1'))).rejects.toThrow(/id_token_signed_response_alg RS256 is not allowed/);
    expect(await events.readStream('client-fapi.api')).toEqual([]);
    expect((await handler.execute(new CreateClient('acme', keyed, undefined, 'admin:1'))).created).toBe(true);
  });

  it('generates a 256-bit secret for a confidential client registered without one, returns it once, and keeps only its digest', async () => {
    const result = await handler.execute(new CreateClient('acme', registration, undefined, 'admin:1'));
    expect(result).toEqual({ created: true, clientSecret: expect.any(String) });
    expect(Buffer.from(result.clientSecret!, 'base64url')).toHaveLength(32);
    const { data } = await created('api');
    expect(JSON.stringify(data)).not.toContain(result.clientSecret);
    expect(secrets.verify('acme', 'api', result.clientSecret!, data.secretDigest!)).toBe(true);
    // Asked again without a secret: nothing appended, nothing generated, nothing reported as differing.
    expect(await handler.execute(new CreateClient('acme', registration, undefined, 'admin:1'))).toEqual({ created: false, unapplied: [] });
  });

  it('keeps a secret it is given, and tells a different one apart from the same one when the client exists', async () => {
    const secret = 'given-secret-0123456789-0123456789-abcdef';
    expect(await handler.execute(new CreateClient('acme', registration, secret, 'admin:1'))).toEqual({ created: true });
    expect(secrets.verify('acme', 'api', secret, (await created('api')).data.secretDigest!)).toBe(true);
    expect(await handler.execute(new CreateClient('acme', registration, secret, 'admin:1'))).toEqual({ created: false, unapplied: [] });
    expect(await handler.execute(new CreateClient('acme', registration, `${secret}x`, 'admin:1'))).toEqual({ created: false, unapplied: ['client_secret'] });
  });

  it('generates nothing for a public client', async () => {
    const result = await handler.execute(new CreateClient('acme', { ...registration, clientId: 'spa', grantTypes: ['authorization_code'], redirectUris: ['https://app.example/cb'], tokenEndpointAuthMethod: 'none' }, undefined, 'admin:1'));
    expect(result).toEqual({ created: true });
    expect((await created('spa')).data).not.toHaveProperty('secretDigest');
  });
});
