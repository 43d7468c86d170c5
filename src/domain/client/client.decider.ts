import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import { SIGNING_ALGS } from '../tenant/tenant.events.js';
import { ASSERTION_ALGS, jwksProblem, REQUEST_OBJECT_ALGS } from './client-jwks.js';
import { type ClientEvent, type ClientRegistration, SECRET_METHODS, type SecretDigest, type TokenEndpointAuthMethod } from './client.events.js';
import { validateRedirectUri } from './redirect-uri.js';
import { validateBackchannelLogoutUri, validateRegisteredUri } from './backchannel-logout-uri.js';
import { validateJwksUri } from './jwks-uri.js';
import { HMAC_ASSERTION_ALGS, withoutSealed } from './client-secret-jwt.js';
import { reservedClientIdFault } from './client-id.js';

const CLIENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;
const GRANTS = new Set(['authorization_code', 'refresh_token', 'client_credentials',
  // Device grant (RFC 8628)
  'urn:ietf:params:oauth:grant-type:device_code']);
const AUTH_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt', /* client_secret_jwt */ 'client_secret_jwt']);
/** Whether the method authenticates with a secret (a client without one keeps none). */
const usesSecret = (method: TokenEndpointAuthMethod) => SECRET_METHODS.includes(method);

export type ClientCommand =
  | { kind: 'CreateClient'; tenantId: string; registration: ClientRegistration }
  /** The client's metadata, whole, as it is to be (its secret aside). */
  | { kind: 'UpdateClient'; registration: Omit<ClientRegistration, 'secretDigest'> }
  | { kind: 'RotateClientSecret'; secretDigest: SecretDigest; previousValidUntil: number }
  | { kind: 'DeleteClient' }
  /** `roleExists`: whether the role was found on its stream when the command was built. */
  | { kind: 'AssignClientRole'; roleId: string; roleExists: boolean }
  | { kind: 'UnassignClientRole'; roleId: string };

/** The secret a rotation replaced, valid until `validUntil` (seconds). */
export interface PreviousSecret {
  digest: SecretDigest;
  validUntil: number;
}

export type ClientState =
  | { exists: false; deleted: boolean }
  | ({ exists: true; tenantId: string; previousSecret?: PreviousSecret; roles?: string[] } & ClientRegistration);

function validate(r: ClientRegistration): void {
  const fail = (m: string) => {
    throw new DomainError('invalid_value', `client ${r.clientId}: ${m}`);
  };
  if (!CLIENT_ID.test(r.clientId)) fail('client_id must be 1-128 unreserved characters');
  for (const g of r.grantTypes) if (!GRANTS.has(g)) fail(`unsupported grant type ${g}`);
  if (!AUTH_METHODS.has(r.tokenEndpointAuthMethod)) fail(`unsupported token_endpoint_auth_method ${r.tokenEndpointAuthMethod}`);
  const isPublic = r.tokenEndpointAuthMethod === 'none';
  if (isPublic && r.secretDigest) fail('a public client (token_endpoint_auth_method none) has no secret');
  if (!usesSecret(r.tokenEndpointAuthMethod) && !isPublic && r.secretDigest) fail(`a ${r.tokenEndpointAuthMethod} client has no secret`);
  if (usesSecret(r.tokenEndpointAuthMethod) && !r.secretDigest) fail('a confidential client needs a client_secret');
  if (r.tokenEndpointAuthMethod === 'private_key_jwt') {
    if (r.jwks === undefined && r.jwksUri === undefined) fail('private_key_jwt needs jwks or jwks_uri, the client\'s public keys');
    if (r.tokenEndpointAuthSigningAlg !== undefined && !(ASSERTION_ALGS as readonly string[]).includes(r.tokenEndpointAuthSigningAlg)) fail(`unsupported token_endpoint_auth_signing_alg ${r.tokenEndpointAuthSigningAlg}`);
  } else if (r.tokenEndpointAuthMethod === 'client_secret_jwt') {
    // client_secret_jwt: HMAC algs only (RFC 7518 §3.2); the secret is kept sealed to check them.
    if (r.tokenEndpointAuthSigningAlg !== undefined && !(HMAC_ASSERTION_ALGS as readonly string[]).includes(r.tokenEndpointAuthSigningAlg)) fail(`token_endpoint_auth_signing_alg of client_secret_jwt must be one of ${HMAC_ASSERTION_ALGS.join(', ')}`);
  } else if (r.tokenEndpointAuthSigningAlg !== undefined) fail('token_endpoint_auth_signing_alg applies to private_key_jwt and client_secret_jwt only');
  if (r.secretDigest?.sealed !== undefined && r.tokenEndpointAuthMethod !== 'client_secret_jwt') fail('only a client_secret_jwt client keeps its secret sealed');
  // jwks_uri: RFC 7591 §2 (jwks and jwks_uri MUST NOT both be present).
  if (r.jwksUri !== undefined) {
    if (r.jwks !== undefined) fail('jwks and jwks_uri must not both be registered (RFC 7591 §2)');
    validateJwksUri(r.jwksUri);
  }
  if (r.jwks !== undefined) {
    const problem = jwksProblem(r.jwks, r.tokenEndpointAuthSigningAlg);
    if (problem) fail(problem);
  }
  if (isPublic && r.grantTypes.includes('client_credentials')) fail('a public client cannot use client_credentials');
  if (r.grantTypes.includes('authorization_code') && r.redirectUris.length === 0) fail('authorization_code needs at least one redirect URI');
  if (r.responseTypes.some((t) => t !== 'code')) fail('only response type "code" is supported');
  if (r.idTokenSignedResponseAlg !== undefined && !SIGNING_ALGS.includes(r.idTokenSignedResponseAlg)) fail(`unsupported id_token_signed_response_alg ${r.idTokenSignedResponseAlg}`);
  // JAR (the keys were checked above):
  if (r.requestObjectSigningAlg !== undefined && !(REQUEST_OBJECT_ALGS as readonly string[]).includes(r.requestObjectSigningAlg)) fail(`unsupported request_object_signing_alg ${r.requestObjectSigningAlg}`);
  if (r.requireSignedRequestObject && !r.jwks && !r.jwksUri) fail('require_signed_request_object needs jwks or jwks_uri to verify the request objects with');
  // JARM:
  if (r.authorizationSignedResponseAlg !== undefined && !SIGNING_ALGS.includes(r.authorizationSignedResponseAlg)) fail(`unsupported authorization_signed_response_alg ${r.authorizationSignedResponseAlg}`);
  r.redirectUris.forEach(validateRedirectUri);
  r.postLogoutRedirectUris.forEach(validateRedirectUri);
  // Back-channel logout.
  if (r.backchannelLogoutUri !== undefined) validateBackchannelLogoutUri(r.backchannelLogoutUri);
  if (r.backchannelLogoutSessionRequired && r.backchannelLogoutUri === undefined) fail('backchannel_logout_session_required needs a backchannel_logout_uri');
  // Front-channel logout: the same rules for its URI.
  if (r.frontchannelLogoutUri !== undefined) validateRegisteredUri(r.frontchannelLogoutUri, 'frontchannel_logout_uri');
  if (r.frontchannelLogoutSessionRequired && r.frontchannelLogoutUri === undefined) fail('frontchannel_logout_session_required needs a frontchannel_logout_uri');
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
        // Only new ids: a client registered before its id was reserved stays as it is.
        if (reservedClientIdFault(command.registration.clientId)) throw new DomainError('invalid_value', reservedClientIdFault(command.registration.clientId)!);
        return [{ type: 'ClientCreated', data: { tenantId: command.tenantId, ...command.registration } }];
      case 'UpdateClient': {
        requireExisting(state);
        const { tenantId, clientId, secretDigest } = state;
        if (command.registration.clientId !== clientId) throw new DomainError('invalid_value', 'client_id cannot change');
        // A client that becomes public loses its secret by rotation only, so the change must not leave one behind.
        if (usesSecret(command.registration.tokenEndpointAuthMethod) && !secretDigest) throw new DomainError('invalid_value', `client ${clientId}: a confidential client needs a secret: rotate one first`);
        validate({ ...command.registration, ...(usesSecret(command.registration.tokenEndpointAuthMethod) && secretDigest ? { secretDigest: withoutSealed(secretDigest) } : {}) });
        return [{ type: 'ClientUpdated', data: { tenantId, ...command.registration } }];
      }
      case 'RotateClientSecret':
        requireExisting(state);
        if (!usesSecret(state.tokenEndpointAuthMethod)) throw new DomainError('invalid_value', `client ${state.clientId}: a ${state.tokenEndpointAuthMethod === 'none' ? 'public' : state.tokenEndpointAuthMethod} client has no secret`);
        // client_secret_jwt: only such a client keeps its new secret sealed beside the digest.
        return [{ type: 'ClientSecretRotated', data: { tenantId: state.tenantId, clientId: state.clientId, secretDigest: state.tokenEndpointAuthMethod === 'client_secret_jwt' ? command.secretDigest : withoutSealed(command.secretDigest), previousValidUntil: command.previousValidUntil } }];
      case 'DeleteClient': {
        requireExisting(state);
        const { tenantId, clientId } = state;
        // The roles go first, so that every role's count of holders stays true.
        const unassigned = (state.roles ?? []).map((roleId): ClientEvent => ({ type: 'ClientRoleUnassigned', data: { tenantId, clientId, roleId } }));
        return [...unassigned, { type: 'ClientDeleted', data: { tenantId, clientId } }];
      }
      case 'AssignClientRole':
        requireExisting(state);
        if (!command.roleExists) throw new DomainError('not_found', `no role ${command.roleId}`);
        if (state.roles?.includes(command.roleId)) return [];
        return [{ type: 'ClientRoleAssigned', data: { tenantId: state.tenantId, clientId: state.clientId, roleId: command.roleId } }];
      case 'UnassignClientRole':
        requireExisting(state);
        if (!state.roles?.includes(command.roleId)) throw new DomainError('not_found', `the client does not hold the role ${command.roleId}`);
        return [{ type: 'ClientRoleUnassigned', data: { tenantId: state.tenantId, clientId: state.clientId, roleId: command.roleId } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ClientCreated':
        return { exists: true, ...event.data };
      case 'ClientUpdated': {
        if (!state.exists) return state;
        const roles = state.roles ? { roles: state.roles } : {};
        // A client made public (or private_key_jwt) keeps no secret.
        if (!usesSecret(event.data.tokenEndpointAuthMethod)) return { exists: true, ...event.data, ...roles };
        // client_secret_jwt: a client that leaves it keeps no sealed secret.
        const keep = (d: SecretDigest) => (event.data.tokenEndpointAuthMethod === 'client_secret_jwt' ? d : withoutSealed(d));
        return { exists: true, ...event.data, ...(state.secretDigest ? { secretDigest: keep(state.secretDigest) } : {}), ...(state.previousSecret ? { previousSecret: { ...state.previousSecret, digest: keep(state.previousSecret.digest) } } : {}), ...roles };
      }
      case 'ClientRoleAssigned':
        return state.exists ? { ...state, roles: [...(state.roles ?? []), event.data.roleId] } : state;
      case 'ClientRoleUnassigned':
        return state.exists ? { ...state, roles: (state.roles ?? []).filter((r) => r !== event.data.roleId) } : state;
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
