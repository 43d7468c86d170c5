import { Controller, Get, Header, Inject, Param } from '@nestjs/common';
import { KeyRing } from '../../infrastructure/crypto/key-ring.js';
import { Directory } from '../../shared/directory.js';

@Controller(':tenant/.well-known')
export class JwksController {
  constructor(
    @Inject(Directory) private readonly directory: Directory,
    @Inject(KeyRing) private readonly keys: KeyRing,
  ) {}

  /** RFC 7517 key set; a new key is published before it signs, so a cached copy stays useful for a while. */
  @Get('jwks.json')
  @Header('cache-control', 'public, max-age=300')
  async jwks(@Param('tenant') tenantId: string) {
    const tenant = await this.directory.requireTenant(tenantId);
    await this.keys.signingKey(tenantId, tenant.signingAlg as never);
    return this.keys.jwks(tenantId);
  }
}
