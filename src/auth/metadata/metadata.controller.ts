import { Controller, Get, Head, Header, Inject, Param } from '@nestjs/common';
import { ASSERTION_ALGS, REQUEST_OBJECT_ALGS } from '../../domain/client/client-jwks.js';
import { HMAC_ASSERTION_ALGS } from '../../domain/client/client-secret-jwt.js';
import { allowedAlgs, profileOf } from '../../domain/security-profile/rules.js';
import { SIGNING_ALGS } from '../../domain/tenant/tenant.events.js';
import { Directory } from '../../shared/directory.js';
import { DPOP_ALGS } from '../dpop/dpop-proofs.js';
import { SUPPORTED_SCOPES, STANDARD_CLAIMS } from '../scopes.js';
import { ACR_VALUES } from '../../domain/challenge/acr.js';
import { PageContexts } from '../../edge/pages/page-contexts.js';

const PATHS = [
  ':tenant/.well-known/openid-configuration',
  ':tenant/.well-known/oauth-authorization-server',
  '.well-known/oauth-authorization-server/:tenant',
  '.well-known/openid-configuration/:tenant',
];

/**
 * OpenID Connect Discovery and RFC 8414 metadata, announcing exactly what works. Served at
 * `{issuer}/.well-known/...` and, for RFC 8414 §3.1 path issuers, `/.well-known/oauth-authorization-server/{tenant}`.
 */
@Controller()
export class MetadataController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(PageContexts) private readonly locales: PageContexts,
  ) {}

  @Get(PATHS)
  @Header('cache-control', 'public, max-age=300')
  document(@Param('tenant') tenant: string) {
    return this.metadata(tenant);
  }

  /** RFC 9110 §9.3.2: the header fields of the GET, without the body. */
  @Head(PATHS)
  @Header('cache-control', 'public, max-age=300')
  head(@Param('tenant') tenant: string) {
    return this.metadata(tenant);
  }

  private async metadata(tenantId: string) {
    const tenant = await this.directory.requireTenant(tenantId);
    const issuer = this.directory.issuer(tenantId);
    // What the tenant's security profile allows, and nothing more (src/domain/security-profile/).
    const profile = profileOf(tenant);
    const authMethods = [...profile.clientAuthMethods];
    const clientAuth = authMethods.filter((m) => m !== 'none');
    // client_secret_jwt: its HMAC algs, where the profile takes the method.
    const assertionAlgs = allowedAlgs(profile, [...ASSERTION_ALGS, ...(authMethods.includes('client_secret_jwt') ? HMAC_ASSERTION_ALGS : [])]);
    const responseAlgs = allowedAlgs(profile, [...new Set(['RS256', ...SIGNING_ALGS])]);
    return {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      userinfo_endpoint: `${issuer}/userinfo`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      introspection_endpoint: `${issuer}/introspect`,
      revocation_endpoint: `${issuer}/revoke`,
      end_session_endpoint: `${issuer}/logout`,
      scopes_supported: SUPPORTED_SCOPES,
      response_types_supported: ['code'],
      // JARM §4: the signed modes beside the plain ones.
      response_modes_supported: profile.responseModes,
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', /* device grant (RFC 8628) */ 'urn:ietf:params:oauth:grant-type:device_code'],
      subject_types_supported: ['public'],
      // RS256 first: what a client that registered no id_token_signed_response_alg gets
      // (OpenID Connect Registration §2; Discovery §3 requires it listed); then any other a client registers.
      id_token_signing_alg_values_supported: responseAlgs,
      token_endpoint_auth_methods_supported: authMethods,
      introspection_endpoint_auth_methods_supported: clientAuth,
      // A public client may revoke its own tokens with its client_id alone (RFC 7009 §5).
      revocation_endpoint_auth_methods_supported: authMethods,
      // private_key_jwt and client_secret_jwt (RFC 8414 §2): the algs a client assertion may be signed with.
      token_endpoint_auth_signing_alg_values_supported: assertionAlgs,
      introspection_endpoint_auth_signing_alg_values_supported: assertionAlgs,
      revocation_endpoint_auth_signing_alg_values_supported: assertionAlgs,
      // DPoP (RFC 9449 §5.1).
      dpop_signing_alg_values_supported: allowedAlgs(profile, DPOP_ALGS),
      code_challenge_methods_supported: profile.codeChallengeMethods,
      prompt_values_supported: ['none', 'login', 'consent'],
      claims_supported: STANDARD_CLAIMS,
      // MFA: the authentication context classes of the ID tokens' `acr`.
      acr_values_supported: ACR_VALUES,
      claims_parameter_supported: false,
      // JAR (RFC 9101 §10.5): request objects by value, verified with the client's jwks.
      request_parameter_supported: true,
      request_object_signing_alg_values_supported: allowedAlgs(profile, REQUEST_OBJECT_ALGS),
      // RFC 9101 §10.5: every request a signed request object (FAPI 2.0 Message Signing).
      require_signed_request_object: profile.requireSignedRequests,
      request_uri_parameter_supported: false,
      authorization_response_iss_parameter_supported: true,
      // JARM §4: RS256 (the default) first, then any other a client registers.
      authorization_signing_alg_values_supported: responseAlgs,
      // PAR (RFC 9126 §5). request_uri_parameter_supported above stays false: only request_uri values from this endpoint are taken.
      pushed_authorization_request_endpoint: `${issuer}/par`,
      require_pushed_authorization_requests: tenant.requirePushedAuthorizationRequests === true || profile.requirePushedRequests,
      // Device grant (RFC 8628 §4).
      device_authorization_endpoint: `${issuer}/device_authorization`,
      // Native apps (OAuth 2.0 for First-Party Applications §8).
      authorization_challenge_endpoint: `${issuer}/native/authorize`,
      // Edge pages: the languages of the sign-in, consent and sign-out pages.
      ui_locales_supported: await this.locales.offered(tenantId),
      // OpenID Connect Back-Channel Logout 1.0 §2.1.
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
      // OpenID Connect Front-Channel Logout 1.0 §3.
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
    };
  }
}
