import { givenFor, types } from '../shared/decider-spec.js';
import { type ClientCommand, clientDecider } from './client.decider.js';
import type { ClientRegistration } from './client.events.js';

const given = givenFor(clientDecider);

const registration: ClientRegistration = {
  clientId: 'web',
  secretDigest: { scheme: 'hmac-sha256', hash: 'd1' },
  redirectUris: ['https://rp.example/cb'],
  postLogoutRedirectUris: [],
  grantTypes: ['authorization_code', 'refresh_token'],
  responseTypes: ['code'],
  scope: ['openid'],
  tokenEndpointAuthMethod: 'client_secret_basic',
  firstParty: false,
};
const create: ClientCommand = { kind: 'CreateClient', tenantId: 't', registration };
const { secretDigest: _secret, ...metadata } = registration;

describe('client decider', () => {
  const created = given().after(create);

  it('holds roles that exist, each once, keeps them across updates, and gives them back when deleted', () => {
    const assign = (roleId: string, roleExists = true): ClientCommand => ({ kind: 'AssignClientRole', roleId, roleExists });
    const holding = given(created).after(assign('robots'));
    expect(types(holding)).toEqual(['ClientCreated', 'ClientRoleAssigned']);
    expect(given(holding).when(assign('robots'))).toEqual([]);
    expect(given(holding).refused(assign('ghosts', false))).toBe('not_found');
    expect(given(created).refused({ kind: 'UnassignClientRole', roleId: 'robots' })).toBe('not_found');
    const updated = given(holding).after({ kind: 'UpdateClient', registration: { ...metadata, clientName: 'Web' } });
    expect(given(updated).state).toMatchObject({ roles: ['robots'] });
    expect(given(updated).when({ kind: 'DeleteClient' })).toEqual([
      { type: 'ClientRoleUnassigned', data: { tenantId: 't', clientId: 'web', roleId: 'robots' } },
      { type: 'ClientDeleted', data: { tenantId: 't', clientId: 'web' } },
    ]);
  });

  it('creates a client once, and never again under the id of a deleted one', () => {
    expect(given().when(create)).toEqual([{ type: 'ClientCreated', data: { tenantId: 't', ...registration } }]);
    expect(given(created).when(create)).toEqual([]);
    const deleted = given(created).after({ kind: 'DeleteClient' });
    expect(deleted.at(-1)).toEqual({ type: 'ClientDeleted', data: { tenantId: 't', clientId: 'web' } });
    expect(given(deleted).when(create)).toEqual([]);
    expect(given(deleted).refused({ kind: 'DeleteClient' })).toBe('not_found');
  });

  it('refuses a registration that breaks a rule, before anything else', () => {
    expect(given().refused({ ...create, registration: { ...registration, clientId: 'a b' } })).toBe('invalid_value');
    expect(given().refused({ ...create, registration: { ...registration, tokenEndpointAuthMethod: 'none' } })).toBe('invalid_value');
    expect(given().refused({ ...create, registration: { ...registration, redirectUris: [] } })).toBe('invalid_value');
    expect(given(created).refused({ ...create, registration: { ...registration, responseTypes: ['token' as 'code'] } })).toBe('invalid_value');
  });

  it('refuses a new client under a reserved id (a route of the admin API), not one that exists already', () => {
    for (const clientId of ['edge-certificate', '.', '..']) expect(given().refused({ ...create, registration: { ...registration, clientId } })).toBe('invalid_value');
    // Registered before the id was reserved: the bootstrap file's start finds it as it is, and it may change.
    const legacy = { ...registration, clientId: 'edge-certificate' };
    const existing = [{ type: 'ClientCreated' as const, data: { tenantId: 't', ...legacy } }];
    expect(given(existing).when({ ...create, registration: legacy })).toEqual([]);
    expect(given(existing).when({ kind: 'UpdateClient', registration: { ...metadata, clientId: 'edge-certificate', clientName: 'Web' } })).toHaveLength(1);
  });

  it('updates the metadata of an existing client and keeps its secret', () => {
    expect(given().refused({ kind: 'UpdateClient', registration: metadata })).toBe('not_found');
    expect(given(created).refused({ kind: 'UpdateClient', registration: { ...metadata, clientId: 'other' } })).toBe('invalid_value');
    const updated = given(created).after({ kind: 'UpdateClient', registration: { ...metadata, clientName: 'Web' } });
    expect(updated.at(-1)).toEqual({ type: 'ClientUpdated', data: { tenantId: 't', ...metadata, clientName: 'Web' } });
    expect(given(updated).state).toMatchObject({ exists: true, clientName: 'Web', secretDigest: registration.secretDigest });
  });

  it('rotates the secret of a confidential client, keeping the previous one until its time', () => {
    const rotate: ClientCommand = { kind: 'RotateClientSecret', secretDigest: { scheme: 'hmac-sha256', hash: 'd2' }, previousValidUntil: 500 };
    const rotated = given(created).after(rotate);
    expect(given(rotated).state).toMatchObject({ secretDigest: { hash: 'd2' }, previousSecret: { digest: { hash: 'd1' }, validUntil: 500 } });
    const madePublic = given(created).after({ kind: 'UpdateClient', registration: { ...metadata, tokenEndpointAuthMethod: 'none' } });
    expect(given(madePublic).state).not.toHaveProperty('secretDigest');
    expect(given(madePublic).refused(rotate)).toBe('invalid_value');
  });

  // jwks_uri
  it('registers a private_key_jwt client by its jwks_uri, never with jwks beside it', () => {
    const { secretDigest: _s, ...keyed } = registration;
    const byUri = { ...keyed, tokenEndpointAuthMethod: 'private_key_jwt' as const, jwksUri: 'https://rp.example/jwks.json' };
    expect(types(given().after({ ...create, registration: byUri }))).toEqual(['ClientCreated']);
    const jwks = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }] };
    expect(given().refused({ ...create, registration: { ...byUri, jwks } })).toBe('invalid_value');
    expect(given().refused({ ...create, registration: { ...byUri, jwksUri: 'http://rp.example/jwks.json' } })).toBe('invalid_value');
    expect(given().refused({ ...create, registration: { ...byUri, jwksUri: undefined } })).toBe('invalid_value');
  });

  // client_secret_jwt
  it('keeps a client_secret_jwt client\'s secret sealed beside its digest, through rotations, and drops the seal when it leaves the method', () => {
    const sealedDigest = { scheme: 'hmac-sha256' as const, hash: 'd1', sealed: 's1' };
    const hs = { ...registration, secretDigest: sealedDigest, tokenEndpointAuthMethod: 'client_secret_jwt' as const, tokenEndpointAuthSigningAlg: 'HS256' };
    const created = given().after({ ...create, registration: hs });
    expect(given(created).state).toMatchObject({ secretDigest: sealedDigest });
    const rotated = given(created).after({ kind: 'RotateClientSecret', secretDigest: { scheme: 'hmac-sha256', hash: 'd2', sealed: 's2' }, previousValidUntil: 500 });
    expect(given(rotated).state).toMatchObject({ secretDigest: { hash: 'd2', sealed: 's2' }, previousSecret: { digest: sealedDigest } });
    const { secretDigest: _s, ...hsMetadata } = hs;
    const left = given(rotated).after({ kind: 'UpdateClient', registration: { ...hsMetadata, tokenEndpointAuthMethod: 'client_secret_basic', tokenEndpointAuthSigningAlg: undefined } });
    expect(given(left).state).toMatchObject({ secretDigest: { hash: 'd2' }, previousSecret: { digest: { hash: 'd1' } } });
    expect(JSON.stringify(given(left).state)).not.toMatch(/sealed/);
    // Any other client's rotation keeps no seal, whatever the command carried.
    const basicRotated = given(given().after(create)).when({ kind: 'RotateClientSecret', secretDigest: { scheme: 'hmac-sha256', hash: 'd2', sealed: 's2' }, previousValidUntil: 500 });
    expect(basicRotated[0].data).toMatchObject({ secretDigest: { scheme: 'hmac-sha256', hash: 'd2' } });
    expect(JSON.stringify(basicRotated)).not.toMatch(/sealed/);
    expect(given().refused({ ...create, registration: { ...hs, tokenEndpointAuthSigningAlg: 'ES256' } })).toBe('invalid_value');
    expect(given().refused({ ...create, registration: { ...registration, secretDigest: sealedDigest } })).toBe('invalid_value');
  });
});
