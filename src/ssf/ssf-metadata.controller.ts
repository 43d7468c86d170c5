import { Controller, Get, Header, Inject, Param } from '@nestjs/common';
import { Directory } from '../shared/directory.js';
import { DELIVERY_METHODS_SUPPORTED } from './stream-requests.js';

/**
 * SSF 1.0 §7.1 transmitter configuration metadata. §7.2: for an issuer with a path, the
 * well-known segment goes between host and path (`/.well-known/ssf-configuration/{tenant}`);
 * also served under the issuer, as the other well-known documents are.
 */
@Controller()
export class SsfMetadataController {
  constructor(@Inject(Directory) private readonly directory: Directory) {}

  @Get([':tenant/.well-known/ssf-configuration', '.well-known/ssf-configuration/:tenant'])
  @Header('cache-control', 'public, max-age=300')
  async document(@Param('tenant') tenantId: string) {
    await this.directory.requireTenant(tenantId);
    const issuer = this.directory.issuer(tenantId);
    return {
      spec_version: '1_0',
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      delivery_methods_supported: DELIVERY_METHODS_SUPPORTED,
      configuration_endpoint: `${issuer}/ssf/stream`,
      status_endpoint: `${issuer}/ssf/status`,
      add_subject_endpoint: `${issuer}/ssf/subjects/add`,
      remove_subject_endpoint: `${issuer}/ssf/subjects/remove`,
      verification_endpoint: `${issuer}/ssf/verify`,
      // §7.1: receivers authorize with an OAuth 2.0 access token (client_credentials, scope ssf:manage).
      authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6749' }],
      // A new stream tells of no one until its receiver adds subjects: a receiver learns only of the users it names.
      default_subjects: 'NONE',
    };
  }
}
