import { Inject, Injectable } from '@nestjs/common';
import type { SigningAlg } from '../domain/tenant/tenant.events.js';
import { signJwt } from '../infrastructure/crypto/jws.js';
import { KeyRing } from '../infrastructure/crypto/key-ring.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { Directory } from '../shared/directory.js';

/** What one SET says, before it is signed. */
export interface SetClaims {
  jti: string;
  aud: string;
  subId: Record<string, unknown>;
  events: Record<string, Record<string, unknown>>;
}

/** Security Event Tokens (RFC 8417) signed with the tenant's current key; undefined when the tenant is gone. */
@Injectable()
export class SecurityEventTokens {
  constructor(
    @Inject(KeyRing) private readonly keys: KeyRing,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async sign(tenantId: string, c: SetClaims): Promise<string | undefined> {
    const tenant = await this.directory.tenant(tenantId);
    if (!tenant) return undefined;
    const key = await this.keys.signingKey(tenantId, tenant.signingAlg as SigningAlg);
    // RFC 8417 §2.2: iss, iat, jti, aud, events; no exp (a SET is a statement of fact, not a
    // credential) and no `sub` (SSF 1.0 §4.1.2: the subject is in `sub_id`).
    const claims = { iss: this.directory.issuer(tenantId), iat: this.clock.seconds(), jti: c.jti, aud: c.aud, sub_id: c.subId, events: c.events };
    // RFC 8417 §2.3: explicitly typed, so that it cannot be taken for another kind of JWT.
    return signJwt({ alg: key.alg, kid: key.kid, typ: 'secevent+jwt' }, claims, key.privateKey);
  }
}
