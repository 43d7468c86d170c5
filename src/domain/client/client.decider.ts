import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import { SIGNING_ALGS } from '../tenant/tenant.events.js';
import type { ClientEvent, ClientRegistration } from './client.events.js';
import { validateRedirectUri } from './redirect-uri.js';

const CLIENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;
const GRANTS = new Set(['authorization_code', 'refresh_token', 'client_credentials']);
const AUTH_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'none']);

export type ClientCommand = { kind: 'CreateClient'; tenantId: string; registration: ClientRegistration };
export type ClientState = { exists: false } | ({ exists: true; tenantId: string } & ClientRegistration);

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
}

export const clientDecider: Decider<ClientCommand, ClientEvent, ClientState> = {
  initialState: { exists: false },
  decide(command, state) {
    switch (command.kind) {
      case 'CreateClient':
        validate(command.registration);
        if (state.exists) return [];
        return [{ type: 'ClientCreated', data: { tenantId: command.tenantId, ...command.registration } }];
      default:
        return assertNever(command.kind);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ClientCreated':
        return { exists: true, ...event.data };
      default:
        return assertNever(event.type);
    }
  },
};
