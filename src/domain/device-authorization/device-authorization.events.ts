import type { DomainEvent } from '../shared/decider.js';

/**
 * RFC 8628 §3.2: a client asked for a device authorization. The stream is named by a keyed hash
 * of the user code; `codeChallenge` is the S256 transform of the device code (the only trace of
 * it kept), against which the session's code is redeemed; times in seconds since the epoch.
 */
export type DeviceAuthorizationRequested = DomainEvent<
  'DeviceAuthorizationRequested',
  { tenantId: string; clientId: string; key: string; codeChallenge: string; scope: string[]; interval: number; expiresAt: number }
>;
/** RFC 8628 §3.3: the user approved on the user-code page; `codeHash` names the code issued in the user's session for the device's tokens. */
export type DeviceAuthorizationApproved = DomainEvent<'DeviceAuthorizationApproved', { tenantId: string; clientId: string; key: string; userId: string; sessionId: string; codeHash: string }>;
/** RFC 8628 §3.5: the user denied; the device's next poll gets `access_denied`. */
export type DeviceAuthorizationDenied = DomainEvent<'DeviceAuthorizationDenied', { tenantId: string; clientId: string; key: string; userId: string }>;

export type DeviceAuthorizationEvent = DeviceAuthorizationRequested | DeviceAuthorizationApproved | DeviceAuthorizationDenied;
