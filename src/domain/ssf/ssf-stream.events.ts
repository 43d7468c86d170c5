import type { DomainEvent } from '../shared/decider.js';

/** RFC 8935 (push) and RFC 8936 (poll), as SSF 1.0 names the delivery methods. */
export const PUSH_METHOD = 'urn:ietf:rfc:8935';
export const POLL_METHOD = 'urn:ietf:rfc:8936';
export type DeliveryMethod = typeof PUSH_METHOD | typeof POLL_METHOD;

/**
 * How a stream's SETs reach its receiver. Push: the receiver's endpoint, and the Authorization
 * header it wants, sealed with the key-encryption key (the sender needs it back, so it cannot
 * be a hash). Poll: the transmitter's endpoint, derived from the stream id, so not stored.
 */
export interface StreamDelivery {
  method: DeliveryMethod;
  endpointUrl?: string;
  authorizationSealed?: string;
}

/** What a receiver configures of a stream (SSF 1.0 §8.1.1, the receiver-supplied members). */
export interface StreamSettings {
  eventsRequested: string[];
  delivery: StreamDelivery;
  description?: string;
}

export type StreamStatus = 'enabled' | 'paused' | 'disabled';

/**
 * A subject as the transmitter matches it: `iss_sub:<sub>` or `email:<lower-case address>`
 * (RFC 9493 formats; an `iss_sub` of another issuer is refused before it gets here).
 */
export type SubjectKey = string;

/** Events of one stream, `ssfstream-<tenant>.<stream id>`. */
export type SsfStreamCreated = DomainEvent<'SsfStreamCreated', { tenantId: string; streamId: string; clientId: string } & StreamSettings>;
/** The receiver's settings replaced as a whole (PUT) or merged (PATCH): the new whole. */
export type SsfStreamUpdated = DomainEvent<'SsfStreamUpdated', { tenantId: string; streamId: string } & StreamSettings>;
export type SsfStreamStatusChanged = DomainEvent<'SsfStreamStatusChanged', { tenantId: string; streamId: string; status: StreamStatus; reason?: string }>;
export type SsfSubjectAdded = DomainEvent<'SsfSubjectAdded', { tenantId: string; streamId: string; subject: SubjectKey }>;
export type SsfSubjectRemoved = DomainEvent<'SsfSubjectRemoved', { tenantId: string; streamId: string; subject: SubjectKey }>;
/** The receiver asked for a verification event (SSF 1.0 §8.1.4); `state` is echoed in it. */
export type SsfVerificationRequested = DomainEvent<'SsfVerificationRequested', { tenantId: string; streamId: string; state?: string }>;
export type SsfStreamDeleted = DomainEvent<'SsfStreamDeleted', { tenantId: string; streamId: string; clientId: string }>;

export type SsfStreamEvent = SsfStreamCreated | SsfStreamUpdated | SsfStreamStatusChanged | SsfSubjectAdded | SsfSubjectRemoved | SsfVerificationRequested | SsfStreamDeleted;

export const SSF_STREAM_EVENTS = ['SsfStreamCreated', 'SsfStreamUpdated', 'SsfStreamStatusChanged', 'SsfSubjectAdded', 'SsfSubjectRemoved', 'SsfVerificationRequested', 'SsfStreamDeleted'] as const;

/**
 * What a receiver did with SETs it polled (RFC 8936 §2.4): acknowledged, or reported as
 * erroneous; on `ssfacks-<tenant>.<stream id>`, a record of facts (never the SETs themselves).
 */
export type SsfSetsAcknowledged = DomainEvent<'SsfSetsAcknowledged', { tenantId: string; streamId: string; acked: string[]; errors: Array<{ jti: string; err: string; description?: string }> }>;
