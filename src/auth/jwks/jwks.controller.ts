import { Controller, Get, Head, Header, Inject, Param } from '@nestjs/common';
import { SIGNING_ALGS } from '../../domain/tenant/tenant.events.js';
import { KeyRing } from '../../infrastructure/crypto/key-ring.js';
import { Directory } from '../../shared/directory.js';

@Controller(':tenant/.well-known')
export class JwksController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(KeyRing) private readonly keys: KeyRing,
  ) {}

  /**
   * RFC 7517 key set, with a key for every algorithm discovery announces for ID tokens (a
   * client may register any of them), made on first need: a copy cached before a client's
   * first token under another algorithm then already holds the key that verifies it.
   */
  @Get('jwks.json')
  @Header('cache-control', 'public, max-age=300')
  async jwks(@Param('tenant') tenantId: string) {
    await this.directory.requireTenant(tenantId);
    for (const alg of SIGNING_ALGS) await this.keys.signingKey(tenantId, alg);
    return this.keys.jwks(tenantId);
  }
  /** RFC 9110 §9.3.2: the header fields of the GET, without the body. */
  @Head('jwks.json')
  @Header('cache-control', 'public, max-age=300')
  head(@Param('tenant') tenantId: string) {
    return this.jwks(tenantId);
  }
}
