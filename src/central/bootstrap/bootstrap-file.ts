import { readFileSync } from 'node:fs';
import { MIN_CLIENT_SECRET_LENGTH } from '../commands/create-client.command.js';
import { passwordProblem } from '../passwords/password-policy.js';
import { parse as parseYaml } from 'yaml';
import type { GrantType, TokenEndpointAuthMethod } from '../../domain/client/client.events.js';
import { type ClientJwks, REQUEST_OBJECT_ALGS } from '../../domain/client/client-jwks.js';
import { SECURITY_PROFILES } from '../../domain/security-profile/profile.js';

import { DEFAULT_SESSION_IDLE_TIMEOUT, DEFAULT_SESSION_MAX_AGE, SIGNING_ALGS, type SigningAlg, type TenantSettings } from '../../domain/tenant/tenant.events.js';
import type { UserClaims } from '../../domain/user/user.events.js';
import { ACCESS_FIELDS, type BootstrapAccess, type FieldReader, readAccess } from './bootstrap-access.js';
import { readChallenges } from './bootstrap-challenges.js';
import type { ChallengesDefinition } from '../../domain/challenge/challenges.events.js';
import { reservedClientIdFault } from '../../domain/client/client-id.js';

/** Client fields of private_key_jwt (RFC 7523) and DPoP (RFC 9449). */
const ASSERTION_FIELDS = ['jwks', 'token_endpoint_auth_signing_alg', 'dpop_bound_access_tokens'];
/** jwks_uri / client_secret_jwt client fields. */
const KEY_SOURCE_FIELDS = ['jwks_uri'];

export interface BootstrapClient {
  clientId: string;
  clientName?: string;
  clientSecret?: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: GrantType[];
  responseTypes: 'code'[];
  scope: string[];
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  firstParty: boolean;
  idTokenSignedResponseAlg?: SigningAlg;
  // private_key_jwt and DPoP
  tokenEndpointAuthSigningAlg?: string;
  dpopBoundAccessTokens?: boolean;
  // PAR:
  requirePushedAuthorizationRequests?: true;
  // JAR (the keys are checked by the client decider):
  jwks?: ClientJwks;
  // jwks_uri (checked by the client decider):
  jwksUri?: string;
  requestObjectSigningAlg?: string;
  requireSignedRequestObject?: true;
  // JARM:
  authorizationSignedResponseAlg?: SigningAlg;
  // Back-channel logout.
  backchannelLogoutUri?: string;
  backchannelLogoutSessionRequired?: boolean;
  // Front-channel logout.
  frontchannelLogoutUri?: string;
  frontchannelLogoutSessionRequired?: boolean;
  // Native apps (first-party, /native/authorize).
  firstPartyNative?: true;
  // Shared Signals push to internal endpoints.
  ssfPushInternalEndpoints?: true;
}

/** Back-channel logout: the client fields it adds. */
const BACKCHANNEL_FIELDS = ['backchannel_logout_uri', 'backchannel_logout_session_required'];
/** Front-channel logout: the client fields it adds. */
const FRONTCHANNEL_FIELDS = ['frontchannel_logout_uri', 'frontchannel_logout_session_required'];
/** Native apps (first-party, /native/authorize): the client field it adds. */
const NATIVE_FIELDS = ['first_party_native'];
/** Shared Signals: push streams of the receiver may name internal endpoints. */
const SSF_FIELDS = ['ssf_push_internal_endpoints'];

export interface BootstrapUser {
  username: string;
  password: string;
  claims: UserClaims;
  /** Roles given to the user when the bootstrap creates them. */
  roles?: string[];
}

export interface BootstrapTenant extends BootstrapAccess {
  id: string;
  settings: TenantSettings;
  clients: BootstrapClient[];
  users: BootstrapUser[];
  /** The tenant's second factors: the admin API's challenges document, checked by its rules. */
  challenges?: ChallengesDefinition;
}

/** A bootstrap file that cannot be applied: names the file, the path in it and the problem. */
export class BootstrapFileError extends Error {
  constructor(file: string, path: string, problem: string) {
    super(`${file}: ${path ? `${path}: ` : ''}${problem}`);
    this.name = 'BootstrapFileError';
  }
}

export const DEFAULT_TENANT_SETTINGS: Required<Omit<TenantSettings, 'operator' | 'keyRotationPeriod' | 'registrationEnabled' | 'dpopNonceRequired' | 'requirePushedAuthorizationRequests'>> = {
  securityProfile: 'baseline',
  accessTokenTtl: 300,
  refreshTokenTtl: 14 * 24 * 3600,
  signingAlg: 'ES256',
  refreshWithoutOfflineAccess: false,
  sessionMaxAge: DEFAULT_SESSION_MAX_AGE,
  sessionIdleTimeout: DEFAULT_SESSION_IDLE_TIMEOUT,
};

type Node = Record<string, unknown>;

/**
 * Reads and checks a YAML or JSON bootstrap file (JSON is YAML, so one parser reads both); every password must meet the policy.
 * `emailCodes`: whether this server can send e-mail codes (a file's challenges may turn them on).
 */
export function readBootstrapFile(file: string, passwordMinLength: number, emailCodes = false): BootstrapTenant[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new BootstrapFileError(file, '', `cannot be read (${(e as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new BootstrapFileError(file, '', `is not valid YAML or JSON (${(e as Error).message.split('\n')[0]})`);
  }
  const r = new Reader(file, passwordMinLength, emailCodes);
  const root = r.object(doc, '');
  r.only(root, '', ['tenants']);
  return r.array(root.tenants ?? [], 'tenants').map((t, i) => r.tenant(t, `tenants[${i}]`));
}

class Reader implements FieldReader {
  constructor(
    private readonly file: string,
    private readonly passwordMinLength: number,
    readonly emailCodes: boolean,
  ) {}

  fail(path: string, problem: string): never {
    throw new BootstrapFileError(this.file, path, problem);
  }

  object(v: unknown, path: string): Node {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail(path, 'must be a mapping');
    return v as Node;
  }

  array(v: unknown, path: string): unknown[] {
    if (!Array.isArray(v)) this.fail(path, 'must be a list');
    return v;
  }

  only(node: Node, path: string, keys: string[]): void {
    for (const k of Object.keys(node)) if (!keys.includes(k)) this.fail(path ? `${path}.${k}` : k, `unknown field (expected one of ${keys.join(', ')})`);
  }

  string(v: unknown, path: string): string {
    if (typeof v !== 'string' || v.length === 0) this.fail(path, 'must be a non-empty string');
    return v;
  }

  optionalString(v: unknown, path: string): string | undefined {
    return v === undefined ? undefined : this.string(v, path);
  }

  bool(v: unknown, path: string, fallback: boolean): boolean {
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') this.fail(path, 'must be true or false');
    return v;
  }

  seconds(v: unknown, path: string, fallback: number): number {
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) this.fail(path, 'must be a positive whole number of seconds');
    return v;
  }

  strings(v: unknown, path: string, fallback: string[] = []): string[] {
    if (v === undefined) return fallback;
    return this.array(v, path).map((s, i) => this.string(s, `${path}[${i}]`));
  }

  oneOf<T extends string>(v: unknown, path: string, allowed: readonly T[], fallback: T): T {
    if (v === undefined) return fallback;
    if (!allowed.includes(v as T)) this.fail(path, `must be one of ${allowed.join(', ')}`);
    return v as T;
  }

  tenant(v: unknown, path: string): BootstrapTenant {
    const n = this.object(v, path);
    this.only(n, path, ['id', 'security_profile', 'access_token_ttl', 'refresh_token_ttl', 'signing_alg', 'refresh_without_offline_access', 'session_max_age', 'session_idle_timeout', 'key_rotation_period', 'registration_enabled', 'dpop_nonce_required', 'require_pushed_authorization_requests', 'operator', 'clients', 'users', ...ACCESS_FIELDS, 'challenges']);
    const d = DEFAULT_TENANT_SETTINGS;
    const operator = this.bool(n.operator, `${path}.operator`, false);
    return {
      id: this.string(n.id, `${path}.id`),
      settings: {
        // `strict` (an older file's) means what its events are upcast to (tenant.upcasters.ts).
        securityProfile: this.oneOf(n.security_profile === 'strict' ? 'fapi2-security' : n.security_profile, `${path}.security_profile`, SECURITY_PROFILES, d.securityProfile),
        accessTokenTtl: this.seconds(n.access_token_ttl, `${path}.access_token_ttl`, d.accessTokenTtl),
        refreshTokenTtl: this.seconds(n.refresh_token_ttl, `${path}.refresh_token_ttl`, d.refreshTokenTtl),
        signingAlg: this.oneOf(n.signing_alg, `${path}.signing_alg`, SIGNING_ALGS, d.signingAlg),
        refreshWithoutOfflineAccess: this.bool(n.refresh_without_offline_access, `${path}.refresh_without_offline_access`, d.refreshWithoutOfflineAccess),
        sessionMaxAge: this.seconds(n.session_max_age, `${path}.session_max_age`, d.sessionMaxAge),
        sessionIdleTimeout: this.seconds(n.session_idle_timeout, `${path}.session_idle_timeout`, d.sessionIdleTimeout),
        ...(n.key_rotation_period !== undefined ? { keyRotationPeriod: this.seconds(n.key_rotation_period, `${path}.key_rotation_period`, 0) } : {}),
        ...(this.bool(n.registration_enabled, `${path}.registration_enabled`, false) ? { registrationEnabled: true } : {}),
        ...(this.bool(n.dpop_nonce_required, `${path}.dpop_nonce_required`, false) ? { dpopNonceRequired: true } : {}),
        ...(this.bool(n.require_pushed_authorization_requests, `${path}.require_pushed_authorization_requests`, false) ? { requirePushedAuthorizationRequests: true } : {}),
        ...(operator ? { operator } : {}),
      },
      clients: this.array(n.clients ?? [], `${path}.clients`).map((c, i) => this.client(c, `${path}.clients[${i}]`)),
      users: this.array(n.users ?? [], `${path}.users`).map((u, i) => this.user(u, `${path}.users[${i}]`)),
      ...readAccess(this, n, path),
      ...(n.challenges !== undefined ? { challenges: readChallenges(this, n.challenges, `${path}.challenges`) } : {}),
    };
  }

  client(v: unknown, path: string): BootstrapClient {
    const n = this.object(v, path);
    this.only(n, path, ['client_id', 'client_name', 'client_secret', 'redirect_uris', 'post_logout_redirect_uris', 'grant_types', 'response_types', 'scope', 'token_endpoint_auth_method', 'first_party', 'id_token_signed_response_alg', ...ASSERTION_FIELDS, ...KEY_SOURCE_FIELDS, 'require_pushed_authorization_requests', 'request_object_signing_alg', 'require_signed_request_object', 'authorization_signed_response_alg', ...BACKCHANNEL_FIELDS, ...FRONTCHANNEL_FIELDS, ...NATIVE_FIELDS, ...SSF_FIELDS]);
    const secret = this.optionalString(n.client_secret, `${path}.client_secret`);
    const method = this.oneOf(n.token_endpoint_auth_method, `${path}.token_endpoint_auth_method`, ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt', /* client_secret_jwt */ 'client_secret_jwt'], secret ? 'client_secret_basic' : 'none');
    if (secret && secret.length < MIN_CLIENT_SECRET_LENGTH) this.fail(`${path}.client_secret`, `must be at least ${MIN_CLIENT_SECRET_LENGTH} characters (only a fast hash of it is kept)`);
    // A secret the server generated would reach nobody from here: the file names its own.
    if (!secret && method !== 'none' && method !== 'private_key_jwt') this.fail(`${path}.client_secret`, `is required for token_endpoint_auth_method ${method}`);
    const grants = this.strings(n.grant_types, `${path}.grant_types`, ['authorization_code']);
    grants.forEach((g, i) => this.oneOf(g, `${path}.grant_types[${i}]`, ['authorization_code', 'refresh_token', 'client_credentials', /* device grant (RFC 8628) */ 'urn:ietf:params:oauth:grant-type:device_code'], 'authorization_code'));
    const responseTypes = this.strings(n.response_types, `${path}.response_types`, ['code']);
    responseTypes.forEach((t, i) => this.oneOf(t, `${path}.response_types[${i}]`, ['code'], 'code'));
    const scope = n.scope === undefined ? 'openid' : this.string(n.scope, `${path}.scope`);
    const clientId = this.string(n.client_id, `${path}.client_id`);
    const reserved = reservedClientIdFault(clientId);
    if (reserved) this.fail(`${path}.client_id`, reserved);
    return {
      clientId,
      clientName: this.optionalString(n.client_name, `${path}.client_name`),
      clientSecret: secret,
      redirectUris: this.strings(n.redirect_uris, `${path}.redirect_uris`),
      postLogoutRedirectUris: this.strings(n.post_logout_redirect_uris, `${path}.post_logout_redirect_uris`),
      grantTypes: grants as GrantType[],
      responseTypes: responseTypes as 'code'[],
      scope: scope.split(' ').filter(Boolean),
      tokenEndpointAuthMethod: method,
      firstParty: this.bool(n.first_party, `${path}.first_party`, false),
      ...(n.id_token_signed_response_alg !== undefined
        ? { idTokenSignedResponseAlg: this.oneOf<SigningAlg>(n.id_token_signed_response_alg, `${path}.id_token_signed_response_alg`, SIGNING_ALGS, 'ES256') }
        : {}),
      // private_key_jwt and DPoP: checked by the client decider.
      ...(n.token_endpoint_auth_signing_alg !== undefined ? { tokenEndpointAuthSigningAlg: this.string(n.token_endpoint_auth_signing_alg, `${path}.token_endpoint_auth_signing_alg`) } : {}),
      ...(n.dpop_bound_access_tokens !== undefined ? { dpopBoundAccessTokens: this.bool(n.dpop_bound_access_tokens, `${path}.dpop_bound_access_tokens`, false) } : {}),
      // PAR:
      ...(this.bool(n.require_pushed_authorization_requests, `${path}.require_pushed_authorization_requests`, false) ? { requirePushedAuthorizationRequests: true as const } : {}),
      // JAR (and private_key_jwt): the keys are checked by the client decider.
      ...(n.jwks !== undefined ? { jwks: this.object(n.jwks, `${path}.jwks`) as unknown as ClientJwks } : {}),
      // jwks_uri: checked by the client decider.
      ...(n.jwks_uri !== undefined ? { jwksUri: this.string(n.jwks_uri, `${path}.jwks_uri`) } : {}),
      ...(n.request_object_signing_alg !== undefined
        ? { requestObjectSigningAlg: this.oneOf<string>(n.request_object_signing_alg, `${path}.request_object_signing_alg`, REQUEST_OBJECT_ALGS, 'ES256') }
        : {}),
      ...(this.bool(n.require_signed_request_object, `${path}.require_signed_request_object`, false) ? { requireSignedRequestObject: true as const } : {}),
      // JARM:
      ...(n.authorization_signed_response_alg !== undefined
        ? { authorizationSignedResponseAlg: this.oneOf<SigningAlg>(n.authorization_signed_response_alg, `${path}.authorization_signed_response_alg`, SIGNING_ALGS, 'RS256') }
        : {}),
      // Back-channel logout.
      ...(n.backchannel_logout_uri !== undefined ? { backchannelLogoutUri: this.string(n.backchannel_logout_uri, `${path}.backchannel_logout_uri`) } : {}),
      ...(n.backchannel_logout_session_required !== undefined
        ? { backchannelLogoutSessionRequired: this.bool(n.backchannel_logout_session_required, `${path}.backchannel_logout_session_required`, false) }
        : {}),
      // Front-channel logout.
      ...(n.frontchannel_logout_uri !== undefined ? { frontchannelLogoutUri: this.string(n.frontchannel_logout_uri, `${path}.frontchannel_logout_uri`) } : {}),
      ...(n.frontchannel_logout_session_required !== undefined
        ? { frontchannelLogoutSessionRequired: this.bool(n.frontchannel_logout_session_required, `${path}.frontchannel_logout_session_required`, false) }
        : {}),
      // Native apps (first-party, /native/authorize).
      ...(this.bool(n.first_party_native, `${path}.first_party_native`, false) ? { firstPartyNative: true as const } : {}),
      // Shared Signals push to internal endpoints.
      ...(this.bool(n.ssf_push_internal_endpoints, `${path}.ssf_push_internal_endpoints`, false) ? { ssfPushInternalEndpoints: true as const } : {}),
    };
  }

  user(v: unknown, path: string): BootstrapUser {
    const n = this.object(v, path);
    this.only(n, path, ['username', 'password', 'email', 'email_verified', 'name', 'given_name', 'family_name', 'roles']);
    const claims: UserClaims = {};
    for (const k of ['email', 'name', 'given_name', 'family_name'] as const) {
      const s = this.optionalString(n[k], `${path}.${k}`);
      if (s !== undefined) claims[k] = s;
    }
    if (n.email_verified !== undefined) claims.email_verified = this.bool(n.email_verified, `${path}.email_verified`, false);
    const username = this.string(n.username, `${path}.username`);
    const password = this.string(n.password, `${path}.password`);
    const problem = passwordProblem(password, { username, email: claims.email }, this.passwordMinLength);
    if (problem) this.fail(`${path}.password`, problem);
    return n.roles === undefined ? { username, password, claims } : { username, password, claims, roles: this.strings(n.roles, `${path}.roles`) };
  }
}
