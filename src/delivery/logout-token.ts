import { Inject, Injectable } from '@nestjs/common';
import { type KeyObject, randomUUID } from 'node:crypto';
import type { SigningAlg } from '../domain/tenant/tenant.events.js';
import { KeyRing } from '../infrastructure/crypto/key-ring.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { Directory } from '../shared/directory.js';
import type { LogoutDeliveryData } from './backchannel-delivery.js';

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** Seconds a logout token is valid: long enough for a slow receiver, short enough not to be replayed later. */
const LOGOUT_TOKEN_TTL = 120;

/** Thrown when no token can be made for a delivery (its tenant is gone): the attempt fails like a refused POST. */
export class NoLogoutToken extends Error {}

/** Logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.4), signed with the tenant's current key. */
@Injectable()
export class LogoutTokens {
  constructor(
    @Inject(KeyRing) private readonly keys: KeyRing,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** The token's header and claims and the key to sign them with, for a signature made elsewhere (the delivery thread). */
  async unsigned(tenantId: string, d: LogoutDeliveryData): Promise<{ header: Record<string, unknown> & { alg: SigningAlg }; payload: Record<string, unknown>; key: KeyObject }> {
    const tenant = await this.directory.tenant(tenantId);
    if (!tenant) throw new NoLogoutToken(`tenant ${tenantId} no longer exists`);
    const key = await this.keys.signingKey(tenantId, tenant.signingAlg as SigningAlg);
    const iat = this.clock.seconds();
    // §2.4: iss, aud, iat, exp, jti, events, and sid and/or sub; a nonce is prohibited. The
    // session is always known here, so `sid` is always sent (whether or not the client requires it).
    const claims = {
      iss: this.directory.issuer(tenantId),
      sub: d.userId,
      aud: d.clientId,
      iat,
      exp: iat + LOGOUT_TOKEN_TTL,
      jti: randomUUID(),
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
      sid: d.sessionId,
    };
    // §2.4: explicitly typed `logout+jwt`, so that it cannot be taken for an ID token.
    return { header: { alg: key.alg, kid: key.kid, typ: 'logout+jwt' }, payload: claims, key: key.privateKey };
  }
}
