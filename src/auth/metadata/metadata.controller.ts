import { Controller, Get, Head, Header, Inject, Param } from '@nestjs/common';
import { SIGNING_ALGS } from '../../domain/tenant/tenant.events.js';
import { Directory } from '../../shared/directory.js';
import { SUPPORTED_SCOPES, STANDARD_CLAIMS } from '../scopes.js';

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
  constructor(@Inject(Directory) private readonly directory: Directory) {}

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
    const clientAuth = ['client_secret_basic', 'client_secret_post'];
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
      response_modes_supported: ['query', 'form_post'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      subject_types_supported: ['public'],
      // RS256 first: what a client that registered no id_token_signed_response_alg gets
      // (OpenID Connect Registration §2; Discovery §3 requires it listed); then any other a client registers.
      id_token_signing_alg_values_supported: [...new Set(['RS256', ...SIGNING_ALGS])],
      token_endpoint_auth_methods_supported: [...clientAuth, 'none'],
      introspection_endpoint_auth_methods_supported: clientAuth,
      // A public client may revoke its own tokens with its client_id alone (RFC 7009 §5).
      revocation_endpoint_auth_methods_supported: [...clientAuth, 'none'],
      code_challenge_methods_supported: tenant.securityProfile === 'strict' ? ['S256'] : ['S256', 'plain'],
      prompt_values_supported: ['none', 'login', 'consent'],
      claims_supported: STANDARD_CLAIMS,
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      authorization_response_iss_parameter_supported: true,
      // OpenID Connect Back-Channel Logout 1.0 §2.1.
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
    };
  }
}
