import type { SecretDigest } from '../src/domain/client/client.events.js';
import type { SigningAlg } from '../src/domain/tenant/tenant.events.js';
import type { Projection } from './projection.js';

/** Registered clients, keyed `<tenant>/<client_id>`; the secret only as its digest. */
export interface ClientView {
  tenantId: string;
  clientId: string;
  clientName?: string;
  secretDigest?: SecretDigest;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  scope: string[];
  tokenEndpointAuthMethod: string;
  firstParty: boolean;
  /** Absent: ID tokens are signed with the tenant's algorithm. */
  idTokenSignedResponseAlg?: SigningAlg;
  createdAt: string;
}

export const clientKey = (tenantId: string, clientId: string) => `${tenantId}/${clientId}`;

export const clientsProjection: Projection<ClientView> = {
  view: 'clients',
  // 2: `secretDigest` (a keyed hash, or a legacy SHA-256 named as such) in place of `secretHash`.
  version: 2,
  eventTypes: ['ClientCreated'],
  indexes: [{ fields: ['tenantId'] }],
  documentId: (e) => clientKey(e.data.tenantId, e.data.clientId),
  apply: (_doc, e) => ({ ...e.data, createdAt: e.metadata.occurredAt }),
};
