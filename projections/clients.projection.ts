import { withoutSealed } from '../src/domain/client/client-secret-jwt.js';
import { type ClientRegistration, SECRET_METHODS, type SecretDigest, type TokenEndpointAuthMethod } from '../src/domain/client/client.events.js';
import type { Projection } from './projection.js';

/**
 * Registered clients, keyed `<tenant>/<client_id>`: the registration as its events last gave it
 * (see ClientRegistration; the secret only as its digest), with what the view adds.
 */
export interface ClientView extends Omit<ClientRegistration, 'grantTypes' | 'responseTypes' | 'tokenEndpointAuthMethod'> {
  tenantId: string;
  grantTypes: string[];
  responseTypes: string[];
  tokenEndpointAuthMethod: string;
  /** The secret the last rotation replaced, accepted until `previousSecretValidUntil` (seconds). */
  previousSecretDigest?: SecretDigest;
  previousSecretValidUntil?: number;
  /** Ids of the roles the client holds for its own tokens. */
  roles?: string[];
  createdAt: string;
  updatedAt: string;
  /** The revision of the client's stream this document shows: its ETag in the admin API. */
  revision: number;
}

export const clientKey = (tenantId: string, clientId: string) => `${tenantId}/${clientId}`;

export const clientsProjection: Projection<ClientView> = {
  view: 'clients',
  // 2: `secretDigest` (a keyed hash, or a legacy SHA-256 named as such) in place of `secretHash`;
  // updates, rotations and deletion; the stream revision (the admin API's ETag). 4: roles.
  version: 4,
  eventTypes: ['ClientCreated', 'ClientUpdated', 'ClientSecretRotated', 'ClientDeleted', 'ClientRoleAssigned', 'ClientRoleUnassigned'],
  indexes: [{ fields: ['tenantId'] }],
  documentId: (e) => clientKey(e.data.tenantId, e.data.clientId),
  readsDocument: (e) => e.type !== 'ClientCreated' && e.type !== 'ClientDeleted',
  apply(doc, e) {
    const at = { updatedAt: e.metadata.occurredAt, revision: e.revision };
    switch (e.type) {
      case 'ClientCreated':
        return { ...e.data, createdAt: e.metadata.occurredAt, ...at };
      case 'ClientUpdated': {
        if (!doc) return null;
        const kept = !SECRET_METHODS.includes(e.data.tokenEndpointAuthMethod as TokenEndpointAuthMethod) ? {} : { secretDigest: doc.secretDigest, previousSecretDigest: doc.previousSecretDigest, previousSecretValidUntil: doc.previousSecretValidUntil };
        // client_secret_jwt: a client that leaves it keeps no sealed secret.
        if (e.data.tokenEndpointAuthMethod !== 'client_secret_jwt') for (const k of ['secretDigest', 'previousSecretDigest'] as const) if (kept[k]) kept[k] = withoutSealed(kept[k]);
        return withoutUndefined({ ...e.data, ...kept, roles: doc.roles, createdAt: doc.createdAt, ...at });
      }
      case 'ClientSecretRotated':
        if (!doc) return null;
        return withoutUndefined({ ...doc, secretDigest: e.data.secretDigest, previousSecretDigest: doc.secretDigest, previousSecretValidUntil: doc.secretDigest ? e.data.previousValidUntil : undefined, ...at });
      case 'ClientDeleted':
        return null;
      case 'ClientRoleAssigned':
        return doc && { ...doc, roles: [...(doc.roles ?? []), e.data.roleId], ...at };
      case 'ClientRoleUnassigned': {
        if (!doc) return null;
        const roles = (doc.roles ?? []).filter((r) => r !== e.data.roleId);
        return withoutUndefined({ ...doc, roles: roles.length ? roles : undefined, ...at });
      }
      default:
        return doc;
    }
  },
};

function withoutUndefined<T extends object>(doc: T): T {
  return Object.fromEntries(Object.entries(doc).filter(([, v]) => v !== undefined)) as T;
}
