import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { BACKCHANNEL_LOGOUT_EVENTS } from '../domain/delivery/backchannel-logout.events.js';
import { BACKCHANNEL_LOGOUT, backchannelStream, type LogoutDeliveryData } from './backchannel-delivery.js';
import { BackchannelFollower } from './backchannel-follower.js';
import { DeliveryKinds, type DeliveryKind, type UnsignedRequest } from './delivery-kind.js';
import type { Delivery } from './delivery-store.js';
import { LogoutTokens } from './logout-token.js';
import type { Answer } from './receiver-pools.js';
import { logoutRefusal } from './refusals.js';

const [delivered, failed, deadLettered] = BACKCHANNEL_LOGOUT_EVENTS;

/** Logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.5) as a delivery kind; its outcome events keep the names the audit trail and token histories read. */
@Injectable()
export class BackchannelLogoutKind implements DeliveryKind<LogoutDeliveryData>, OnModuleInit {
  readonly kind = BACKCHANNEL_LOGOUT;
  readonly outcomeTypes = { delivered, failed, deadLettered };

  constructor(
    @Inject(DeliveryKinds) private readonly kinds: DeliveryKinds,
    @Inject(BackchannelFollower) private readonly follower: BackchannelFollower,
    @Inject(LogoutTokens) private readonly tokens: LogoutTokens,
  ) {}

  onModuleInit(): void {
    this.kinds.register(this, this.follower);
  }

  /** §2.5: a form-encoded POST of one field, `logout_token`, signed anew at each attempt (by the delivery thread). */
  async render(d: Delivery<LogoutDeliveryData>): Promise<UnsignedRequest> {
    const jwt = await this.tokens.unsigned(d.tenantId, d.data);
    return { url: d.uri, headers: { 'content-type': 'application/x-www-form-urlencoded' }, jwt, form: 'logout_token' };
  }

  /** §2.8: a 400 is the RP refusing the request or failing its logout; dead-lettered at once with its `error`. */
  refusal(answer: Answer): string | undefined {
    return logoutRefusal(answer);
  }

  outcomeStream(d: Delivery<LogoutDeliveryData>): string {
    return backchannelStream(d.tenantId, d.deliveryId);
  }

  /** The session's fields, so that its token history shows the outcome. */
  outcomeFields(d: Delivery<LogoutDeliveryData>): Record<string, unknown> {
    return { clientId: d.data.clientId, sessionId: d.data.sessionId, userId: d.data.userId };
  }

  represent(d: Delivery<LogoutDeliveryData>): Record<string, unknown> {
    return { client_id: d.data.clientId, sid: d.data.sessionId, sub: d.data.userId, backchannel_logout_uri: d.uri };
  }
}
