import { Inject, Injectable } from '@nestjs/common';
import { type DeviceAuthorizationCommand, deviceAuthorizationDecider, type DeviceAuthorizationState } from '../../domain/device-authorization/device-authorization.decider.js';
import { s256 } from '../../domain/session/session.decider.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { streams } from '../../domain/shared/stream-names.js';
import { randomToken } from '../../infrastructure/crypto/hashing.js';
import { KeyEncryption } from '../../infrastructure/crypto/key-encryption.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { EVENT_STORE, type EventStore, type RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { expireLater } from '../../infrastructure/event-store/expired-streams.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { storeError } from '../oauth-errors.js';
import { newUserCode, normalUserCode } from './user-code.js';

/** RFC 8628 §3.2: how long a device code and its user code live. */
export const DEVICE_CODE_TTL_SECONDS = 600;
/** RFC 8628 §3.2: the least time between polls (the RFC's default). */
export const POLL_INTERVAL_SECONDS = 5;
/** How long a device authorization's stream outlives its expiry: a device polling late is told `expired_token` (RFC 8628 §3.5), not that its code is unknown. */
export const DEVICE_AUTHORIZATION_KEPT_AFTER_EXPIRY_SECONDS = 3600;
/** Draws of a user code before giving up: a clash in 20^8 codes is rare already. */
const DRAWS = 5;

/** A device code: `<key>.<secret>`, where the key names the authorization's stream and the secret (256 bits) proves it is the device's. */
const DEVICE_CODE = /^([A-Za-z0-9_-]{32})\.[A-Za-z0-9_-]{43}$/;

/** A device authorization, as found by its user code or its device code. */
export interface FoundAuthorization {
  key: string;
  state: DeviceAuthorizationState;
}

/**
 * Device authorizations (RFC 8628), each on a stream named by a keyed hash of its user code, so
 * that the user-code page finds it without an index, and a guess cannot be checked without the
 * server's key. The device code carries that stream key plus a secret, of which only the S256
 * transform is kept; the session's code is redeemed with the device code as its PKCE verifier.
 */
@Injectable()
export class DeviceAuthorizations {
  private readonly userCodeKey: (value: string) => string;

  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(KeyEncryption) keys: KeyEncryption,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {
    this.userCodeKey = keys.keyedHasher('device user code');
  }

  async request(tenantId: string, clientId: string, scope: string[], origin: RequestOrigin): Promise<{ deviceCode: string; userCode: string }> {
    for (let draw = 1; ; draw++) {
      const userCode = newUserCode();
      const key = this.key(tenantId, normalUserCode(userCode)!);
      const deviceCode = `${key}.${randomToken(32)}`;
      const now = this.clock.now();
      const command: DeviceAuthorizationCommand = {
        kind: 'Request',
        tenantId,
        clientId,
        key,
        codeChallenge: s256(deviceCode),
        scope,
        interval: POLL_INTERVAL_SECONDS,
        expiresAt: Math.floor(now.getTime() / 1000) + DEVICE_CODE_TTL_SECONDS,
      };
      try {
        const stream = streams.deviceAuthorization(tenantId, key);
        await this.aggregates.execute(stream, deviceAuthorizationDecider, command, { tenantId, actor: `client:${clientId}`, now, ...origin });
        expireLater(this.events, stream, (command.expiresAt + DEVICE_AUTHORIZATION_KEPT_AFTER_EXPIRY_SECONDS) * 1000);
        return { deviceCode, userCode };
      } catch (e) {
        if (!(e instanceof DomainError) || draw >= DRAWS) throw storeError(e) ?? e;
      }
    }
  }

  /** The authorization a typed user code names, or undefined when it names none. */
  async byUserCode(tenantId: string, typed: string): Promise<FoundAuthorization | undefined> {
    const code = normalUserCode(typed);
    if (!code) return undefined;
    const key = this.key(tenantId, code);
    return this.load(tenantId, key);
  }

  /** The authorization a device code names, with its key; undefined when the code has not the shape of one or names none. */
  async byDeviceCode(tenantId: string, deviceCode: string): Promise<FoundAuthorization | undefined> {
    const key = DEVICE_CODE.exec(deviceCode)?.[1];
    return key === undefined ? undefined : this.load(tenantId, key);
  }

  async load(tenantId: string, key: string): Promise<FoundAuthorization | undefined> {
    const { state } = await this.aggregates.load(streams.deviceAuthorization(tenantId, key), deviceAuthorizationDecider);
    return state.requested && state.requested.tenantId === tenantId ? { key, state } : undefined;
  }

  /** The user's answer; false when it came too late (expired, or answered already). */
  async answer(tenantId: string, command: Extract<DeviceAuthorizationCommand, { kind: 'Approve' | 'Deny' }>, origin: RequestOrigin): Promise<boolean> {
    try {
      await this.aggregates.execute(streams.deviceAuthorization(tenantId, command.key), deviceAuthorizationDecider, command, { tenantId, actor: `user:${command.userId}`, now: this.clock.now(), ...origin });
      return true;
    } catch (e) {
      if (e instanceof DomainError) return false;
      throw storeError(e) ?? e;
    }
  }

  private key(tenantId: string, normalCode: string): string {
    return this.userCodeKey(`${tenantId}\n${normalCode}`).slice(0, 32);
  }
}
