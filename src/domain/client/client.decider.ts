import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import { SIGNING_ALGS } from '../tenant/tenant.events.js';
import type { ClientEvent, ClientRegistration, SecretDigest } from './client.events.js';
import { validateRedirectUri } from './redirect-uri.js';
import { validateBackchannelLogoutUri } from './backchannel-logout-uri.js';

const CLIENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;
const GRANTS = new Set(['authorization_code', 'refresh_token', 'client_credentials']);
const AUTH_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'none']);

export type ClientCommand =
  | { kind: 'CreateClient'; tenantId: string; registration: ClientRegistration }
  /** The client's metadata, whole, as it is to be (its secret aside). */
  | { kind: 'UpdateClient'; registration: Omit<ClientRegistration, 'secretDigest'> }
  | { kind: 'RotateClientSecret'; secretDigest: SecretDigest; previousValidUntil: number }
  | { kind: 'DeleteClient' };

/** The secret a rotation replaced, valid until `validUntil` (seconds). */
export interface PreviousSecret {
  digest: SecretDigest;
  validUntil: number;
}

export type ClientState =
  | { exists: false; deleted: boolean }
  | ({ exists: true; tenantId: string; previousSecret?: PreviousSecret } & ClientRegistration);

function validate(r: ClientRegistration): void {
  const fail = (m: string) => {
    throw new DomainError('invalid_value', `client ${r.clientId}: ${m}`);
  };
  if (!CLIENT_ID.test(r.clientId)) fail('client_id must be 1-128 unreserved characters');
  for (const g of r.grantTypes) if (!GRANTS.has(g)) fail(`unsupported grant type ${g}`);
  if (!AUTH_METHODS.has(r.tokenEndpointAuthMethod)) fail(`unsupported token_endpoint_auth_method ${r.tokenEndpointAuthMethod}`);
  const isPublic = r.tokenEndpointAuthMethod === 'none';
  if (isPublic && r.secretDigest) fail('a public client (token_endpoint_auth_method none) has no secret');
  if (!isPublic && !r.secretDigest) fail('a confidential client needs a client_secret');
  if (isPublic && r.grantTypes.includes('client_credentials')) fail('a public client cannot use client_credentials');
  if (r.grantTypes.includes('authorization_code') && r.redirectUris.length === 0) fail('authorization_code needs at least one redirect URI');
  if (r.responseTypes.some((t) => t !== 'code')) fail('only response type "code" is supported');
  if (r.idTokenSignedResponseAlg !== undefined && !SIGNING_ALGS.includes(r.idTokenSignedResponseAlg)) fail(`unsupported id_token_signed_response_alg ${r.idTokenSignedResponseAlg}`);
  r.redirectUris.forEach(validateRedirectUri);
  r.postLogoutRedirectUris.forEach(validateRedirectUri);
  // Back-channel logout.
  if (r.backchannelLogoutUri !== undefined) validateBackchannelLogoutUri(r.backchannelLogoutUri);
  if (r.backchannelLogoutSessionRequired && r.backchannelLogoutUri === undefined) fail('backchannel_logout_session_required needs a backchannel_logout_uri');
}

function requireExisting(state: ClientState): asserts state is Extract<ClientState, { exists: true }> {
  if (!state.exists) throw new DomainError('not_found', 'no such client');
}

export const clientDecider: Decider<ClientCommand, ClientEvent, ClientState> = {
  initialState: { exists: false, deleted: false },
  decide(command, state) {
    switch (command.kind) {
      case 'CreateClient':
        validate(command.registration);
        // A deleted client's id is never registered again: tokens issued to it must not come back to life.
        if (state.exists || state.deleted) return [];
        return [{ type: 'ClientCreated', data: { tenantId: command.tenantId, ...command.registration } }];
      case 'UpdateClient': {
        requireExisting(state);
        const { tenantId, clientId, secretDigest } = state;
        if (command.registration.clientId !== clientId) throw new DomainError('invalid_value', 'client_id cannot change');
        // A client that becomes public loses its secret by rotation only, so the change must not leave one behind.
        if (command.registration.tokenEndpointAuthMethod !== 'none' && !secretDigest) throw new DomainError('invalid_value', `client ${clientId}: a confidential client needs a secret: rotate one first`);
        validate({ ...command.registration, ...(command.registration.tokenEndpointAuthMethod === 'none' ? {} : { secretDigest }) });
        return [{ type: 'ClientUpdated', data: { tenantId, ...command.registration } }];
      }
      case 'RotateClientSecret':
        requireExisting(state);
        if (state.tokenEndpointAuthMethod === 'none') throw new DomainError('invalid_value', `client ${state.clientId}: a public client has no secret`);
        return [{ type: 'ClientSecretRotated', data: { tenantId: state.tenantId, clientId: state.clientId, secretDigest: command.secretDigest, previousValidUntil: command.previousValidUntil } }];
      case 'DeleteClient':
        requireExisting(state);
        return [{ type: 'ClientDeleted', data: { tenantId: state.tenantId, clientId: state.clientId } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ClientCreated':
        return { exists: true, ...event.data };
      case 'ClientUpdated':
        if (!state.exists) return state;
        // A client made public keeps no secret.
        if (event.data.tokenEndpointAuthMethod === 'none') return { exists: true, ...event.data };
        return { exists: true, ...event.data, ...(state.secretDigest ? { secretDigest: state.secretDigest } : {}), ...(state.previousSecret ? { previousSecret: state.previousSecret } : {}) };
      case 'ClientSecretRotated': {
        if (!state.exists) return state;
        const previousSecret = state.secretDigest ? { digest: state.secretDigest, validUntil: event.data.previousValidUntil } : undefined;
        return { ...state, secretDigest: event.data.secretDigest, ...(previousSecret ? { previousSecret } : {}) };
      }
      case 'ClientDeleted':
        return { exists: false, deleted: true };
      default:
        return assertNever(event);
    }
  },
};
