import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import type { ClientView } from '../../../projections/clients.projection.js';
import type { ClientRegistration, GrantType, TokenEndpointAuthMethod } from '../../domain/client/client.events.js';
import { type ClientJwks, REQUEST_OBJECT_ALGS } from '../../domain/client/client-jwks.js';
import { SIGNING_ALGS, type SigningAlg } from '../../domain/tenant/tenant.events.js';

const GRANTS = ['authorization_code', 'refresh_token', 'client_credentials',
  // Device grant (RFC 8628)
  'urn:ietf:params:oauth:grant-type:device_code'];
// private_key_jwt (RFC 7523); client_secret_jwt is taken here only to be refused with its reason by the decider.
const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt', 'client_secret_jwt'];

/** A client as the admin API takes it: RFC 7591 metadata names; the secret is never taken, only generated. */
export class ClientDto {
  @IsOptional()
  @Matches(/^[A-Za-z0-9._~-]{1,128}$/, { message: 'client_id must be 1-128 unreserved characters' })
  client_id?: string;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  client_name?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(2000, { each: true })
  redirect_uris?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(2000, { each: true })
  post_logout_redirect_uris?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(3)
  @IsIn(GRANTS, { each: true })
  grant_types?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1)
  @IsIn(['code'], { each: true })
  response_types?: string[];

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  @Matches(/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/, { message: 'scope must be space-separated scope tokens (RFC 6749 §3.3)' })
  scope?: string;

  @IsOptional()
  @IsIn(AUTH_METHODS)
  token_endpoint_auth_method?: string;

  @IsOptional()
  @IsBoolean()
  first_party?: boolean;

  @IsOptional()
  @IsIn(SIGNING_ALGS)
  id_token_signed_response_alg?: string;

  // private_key_jwt (RFC 7523):
  @IsOptional()
  @IsString()
  @MaxLength(20)
  token_endpoint_auth_signing_alg?: string;

  // DPoP (RFC 9449 §5.2).
  @IsOptional()
  @IsBoolean()
  dpop_bound_access_tokens?: boolean;

  // PAR (RFC 9126 §6):
  @IsOptional()
  @IsBoolean()
  require_pushed_authorization_requests?: boolean;

  // The client's public keys, for private_key_jwt and JAR (RFC 9101 §10.5); checked by the client decider (client-jwks.ts):
  @IsOptional()
  @IsObject()
  jwks?: Record<string, unknown>;

  // jwks_uri (RFC 7591 §2), checked by the client decider (jwks-uri.ts):
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  jwks_uri?: string;

  @IsOptional()
  @IsIn(REQUEST_OBJECT_ALGS)
  request_object_signing_alg?: string;

  @IsOptional()
  @IsBoolean()
  require_signed_request_object?: boolean;

  // JARM §3:
  @IsOptional()
  @IsIn(SIGNING_ALGS)
  authorization_signed_response_alg?: string;

  // Back-channel logout (OpenID Connect Back-Channel Logout 1.0 §2.2).
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  backchannel_logout_uri?: string;

  @IsOptional()
  @IsBoolean()
  backchannel_logout_session_required?: boolean;

  // Front-channel logout (OpenID Connect Front-Channel Logout 1.0 §2).
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  frontchannel_logout_uri?: string;

  @IsOptional()
  @IsBoolean()
  frontchannel_logout_session_required?: boolean;

  // Native apps (OAuth 2.0 for First-Party Applications): may use the authorization challenge endpoint.
  @IsOptional()
  @IsBoolean()
  first_party_native?: boolean;

  // Shared Signals: push streams of this receiver may name internal endpoints.
  @IsOptional()
  @IsBoolean()
  ssf_push_internal_endpoints?: boolean;
}

/** The registration a DTO describes, with the defaults of the bootstrap file for what it leaves out. */
export function registrationOf(dto: ClientDto, clientId: string): Omit<ClientRegistration, 'secretDigest'> {
  return {
    clientId,
    ...(dto.client_name !== undefined ? { clientName: dto.client_name } : {}),
    redirectUris: dto.redirect_uris ?? [],
    postLogoutRedirectUris: dto.post_logout_redirect_uris ?? [],
    grantTypes: (dto.grant_types ?? ['authorization_code']) as GrantType[],
    responseTypes: (dto.response_types ?? ['code']) as 'code'[],
    scope: (dto.scope ?? 'openid').split(' ').filter(Boolean),
    tokenEndpointAuthMethod: (dto.token_endpoint_auth_method ?? 'client_secret_basic') as TokenEndpointAuthMethod,
    firstParty: dto.first_party ?? false,
    ...(dto.id_token_signed_response_alg !== undefined ? { idTokenSignedResponseAlg: dto.id_token_signed_response_alg as SigningAlg } : {}),
    // private_key_jwt and DPoP
    ...(dto.token_endpoint_auth_signing_alg !== undefined ? { tokenEndpointAuthSigningAlg: dto.token_endpoint_auth_signing_alg } : {}),
    ...(dto.dpop_bound_access_tokens !== undefined ? { dpopBoundAccessTokens: dto.dpop_bound_access_tokens } : {}),
    // PAR:
    ...(dto.require_pushed_authorization_requests ? { requirePushedAuthorizationRequests: true as const } : {}),
    // JAR:
    ...(dto.jwks !== undefined ? { jwks: dto.jwks as unknown as ClientJwks } : {}),
    // jwks_uri
    ...(dto.jwks_uri !== undefined ? { jwksUri: dto.jwks_uri } : {}),
    ...(dto.request_object_signing_alg !== undefined ? { requestObjectSigningAlg: dto.request_object_signing_alg } : {}),
    ...(dto.require_signed_request_object ? { requireSignedRequestObject: true as const } : {}),
    // JARM:
    ...(dto.authorization_signed_response_alg !== undefined ? { authorizationSignedResponseAlg: dto.authorization_signed_response_alg as SigningAlg } : {}),
    // Back-channel logout.
    ...(dto.backchannel_logout_uri !== undefined ? { backchannelLogoutUri: dto.backchannel_logout_uri } : {}),
    ...(dto.backchannel_logout_session_required !== undefined ? { backchannelLogoutSessionRequired: dto.backchannel_logout_session_required } : {}),
    // Front-channel logout.
    ...(dto.frontchannel_logout_uri !== undefined ? { frontchannelLogoutUri: dto.frontchannel_logout_uri } : {}),
    ...(dto.frontchannel_logout_session_required !== undefined ? { frontchannelLogoutSessionRequired: dto.frontchannel_logout_session_required } : {}),
    // Native apps (first-party, /native/authorize).
    ...(dto.first_party_native ? { firstPartyNative: true as const } : {}),
    // Shared Signals push to internal endpoints.
    ...(dto.ssf_push_internal_endpoints ? { ssfPushInternalEndpoints: true as const } : {}),
  };
}

/** A client as the admin API shows it (RFC 7591 names); never its secret or the secret's hash. */
export function clientRepresentation(c: ClientView): Record<string, unknown> {
  return {
    client_id: c.clientId,
    ...(c.clientName !== undefined ? { client_name: c.clientName } : {}),
    redirect_uris: c.redirectUris,
    post_logout_redirect_uris: c.postLogoutRedirectUris,
    grant_types: c.grantTypes,
    response_types: c.responseTypes,
    scope: c.scope.join(' '),
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    first_party: c.firstParty,
    ...(c.idTokenSignedResponseAlg !== undefined ? { id_token_signed_response_alg: c.idTokenSignedResponseAlg } : {}),
    // private_key_jwt and DPoP
    ...(c.tokenEndpointAuthSigningAlg !== undefined ? { token_endpoint_auth_signing_alg: c.tokenEndpointAuthSigningAlg } : {}),
    ...(c.dpopBoundAccessTokens !== undefined ? { dpop_bound_access_tokens: c.dpopBoundAccessTokens } : {}),
    // PAR:
    ...(c.requirePushedAuthorizationRequests ? { require_pushed_authorization_requests: true } : {}),
    // JAR:
    ...(c.jwks !== undefined ? { jwks: c.jwks } : {}),
    // jwks_uri
    ...(c.jwksUri !== undefined ? { jwks_uri: c.jwksUri } : {}),
    ...(c.requestObjectSigningAlg !== undefined ? { request_object_signing_alg: c.requestObjectSigningAlg } : {}),
    ...(c.requireSignedRequestObject ? { require_signed_request_object: true } : {}),
    // JARM:
    ...(c.authorizationSignedResponseAlg !== undefined ? { authorization_signed_response_alg: c.authorizationSignedResponseAlg } : {}),
    // Back-channel logout.
    ...(c.backchannelLogoutUri !== undefined ? { backchannel_logout_uri: c.backchannelLogoutUri, backchannel_logout_session_required: c.backchannelLogoutSessionRequired ?? false } : {}),
    // Front-channel logout.
    ...(c.frontchannelLogoutUri !== undefined ? { frontchannel_logout_uri: c.frontchannelLogoutUri, frontchannel_logout_session_required: c.frontchannelLogoutSessionRequired ?? false } : {}),
    // Native apps (first-party, /native/authorize).
    ...(c.firstPartyNative ? { first_party_native: true } : {}),
    // Shared Signals push to internal endpoints.
    ...(c.ssfPushInternalEndpoints ? { ssf_push_internal_endpoints: true } : {}),
    ...(c.previousSecretValidUntil !== undefined ? { previous_secret_valid_until: c.previousSecretValidUntil } : {}),
    roles: c.roles ?? [],
    created_at: c.createdAt,
    updated_at: c.updatedAt ?? c.createdAt,
  };
}

/** The body of a secret rotation (optional): how long the secret it replaces stays valid. */
export class SecretRotationDto {
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(7 * 24 * 3600)
  grace_period?: number;
}
