import type { RecordedEvent } from '../infrastructure/event-store/event-store.port.js';

/**
 * The public contract of the transmitter: which domain events become which Security Event
 * Token events (CAEP 1.0, RISC 1.0, SSF 1.0), in this one file. Like the event feed's, a
 * mapping is added, never reshaped; no secret and no hash of one goes out.
 */
export const SSF_EVENTS = {
  sessionRevoked: 'https://schemas.openid.net/secevent/caep/event-type/session-revoked',
  credentialChange: 'https://schemas.openid.net/secevent/caep/event-type/credential-change',
  accountDisabled: 'https://schemas.openid.net/secevent/risc/event-type/account-disabled',
  accountEnabled: 'https://schemas.openid.net/secevent/risc/event-type/account-enabled',
  verification: 'https://schemas.openid.net/secevent/ssf/event-type/verification',
} as const;

/** `events_supported` of every stream; verification is sent on request whatever a stream asked for. */
export const EVENTS_SUPPORTED: readonly string[] = Object.values(SSF_EVENTS);

/** What a stream delivers of what it requested (SSF 1.0 §8.1.1: events_delivered). */
export const eventsDelivered = (requested: readonly string[]): string[] => EVENTS_SUPPORTED.filter((e) => requested.includes(e));

/** A domain event about a user, as one SET event: its type, its members, and the session it is about. */
export interface UserSignal {
  eventType: string;
  userId: string;
  sessionId?: string;
  payload: Record<string, unknown>;
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** CAEP 1.0 §3.1 `initiating_entity` of a session's end. */
const SESSION_INITIATOR: Record<string, string> = { logout: 'user', another_user_signed_in: 'user', admin: 'admin', refresh_replayed: 'policy' };

const MAPPERS: Record<string, (e: RecordedEvent, d: any) => UserSignal | undefined> = {
  // CAEP 1.0 §3.1; the session is named in sub_id (a complex subject: user and session).
  SessionRevoked: (e, d) => ({
    eventType: SSF_EVENTS.sessionRevoked,
    userId: d.userId,
    sessionId: d.sessionId,
    payload: { event_timestamp: seconds(e.metadata.occurredAt), initiating_entity: SESSION_INITIATOR[d.reason] ?? 'system' },
  }),
  // CAEP 1.0 §3.3: the password set anew (by an administrator, or by the user).
  UserPasswordChanged: (e, d) => ({
    eventType: SSF_EVENTS.credentialChange,
    userId: d.userId,
    payload: { credential_type: 'password', change_type: 'update', event_timestamp: seconds(e.metadata.occurredAt), initiating_entity: e.metadata.actor === `user:${d.userId}` ? 'user' : 'admin' },
  }),
  // RISC 1.0 §2.2 and §2.3.
  UserDisabled: (_e, d) => ({ eventType: SSF_EVENTS.accountDisabled, userId: d.userId, payload: {} }),
  UserEnabled: (_e, d) => ({ eventType: SSF_EVENTS.accountEnabled, userId: d.userId, payload: {} }),
};

/** The domain event types that become user signals. */
export const SIGNAL_SOURCE_TYPES: readonly string[] = Object.keys(MAPPERS);

export function userSignal(e: RecordedEvent): UserSignal | undefined {
  return Object.hasOwn(MAPPERS, e.type) ? MAPPERS[e.type](e, e.data) : undefined;
}

/** The subject key of a user by id, and by e-mail address (RFC 9493 `iss_sub`, `email`). */
export const issSubKey = (sub: string) => `iss_sub:${sub}`;
export const emailKey = (email: string) => `email:${email.toLowerCase()}`;

/**
 * The `sub_id` of a user signal for a stream, or undefined when the stream holds no subject
 * naming the user. In the format the receiver added the user in (RFC 9493 §3): `iss_sub`
 * first, else `email`; a session's end names the session too (SSF 1.0 §3.2, complex subject).
 */
export function subjectFor(subjects: readonly string[], issuer: string, signal: UserSignal, email?: string): Record<string, unknown> | undefined {
  let user: Record<string, unknown> | undefined;
  if (subjects.includes(issSubKey(signal.userId))) user = { format: 'iss_sub', iss: issuer, sub: signal.userId };
  else if (email && subjects.includes(emailKey(email))) user = { format: 'email', email };
  if (!user) return undefined;
  if (!signal.sessionId) return user;
  return { format: 'complex', user, session: { format: 'opaque', id: signal.sessionId } };
}
