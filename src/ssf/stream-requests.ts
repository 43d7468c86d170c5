import { InvalidRequest } from '../auth/oauth-errors.js';
import { POLL_METHOD, PUSH_METHOD, type StreamSettings, type StreamStatus } from '../domain/ssf/ssf-stream.events.js';
import type { SsfStreamView } from '../../projections/ssf-streams.projection.js';
import { checkPushEndpoint } from './push-endpoint.js';
import { emailKey, eventsDelivered, EVENTS_SUPPORTED, issSubKey } from './security-events.js';

/**
 * The wire of SSF 1.0 §8.1 (stream management) read and written: request bodies checked member
 * by member (a bad one is `invalid_request`, never a 500), configurations rendered with the
 * transmitter-supplied members. The push Authorization header is write-only: never rendered.
 */

const STREAM_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_EVENTS = 32;
const MAX_URI = 256;
const MAX_TEXT = 1000;
const MAX_AUTHORIZATION = 4096;
const STATUSES: readonly StreamStatus[] = ['enabled', 'paused', 'disabled'];

/** The delivery methods streams may use (metadata `delivery_methods_supported`). */
export const DELIVERY_METHODS_SUPPORTED: readonly string[] = [PUSH_METHOD, POLL_METHOD];

type Body = Record<string, unknown>;

/** A JSON object body, or invalid_request. */
export function objectBody(raw: unknown): Body {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidRequest('the body must be a JSON object');
  return raw as Body;
}

function only(body: Body, allowed: readonly string[]): void {
  const extra = Object.keys(body).find((k) => !allowed.includes(k));
  if (extra !== undefined) throw new InvalidRequest(`unknown member ${extra}`);
}

function text(value: unknown, name: string, max: number): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) throw new InvalidRequest(`${name} must be a string of 1 to ${max} characters`);
  return value;
}

/** A stream_id as the transmitter makes them (from the body or the query). */
export function streamIdOf(value: unknown): string {
  if (typeof value !== 'string' || !STREAM_ID.test(value)) throw new InvalidRequest('stream_id must be the id of a stream');
  return value;
}

/** What the transmitter supplies (SSF 1.0 §8.1.1): a request may repeat it, only as it is. */
export interface Supplied {
  iss: string;
  aud: string;
  streamId?: string;
}

const READ_ONLY = ['iss', 'aud', 'events_supported', 'events_delivered', 'min_verification_interval', 'inactivity_timeout'];
const RECEIVER = ['events_requested', 'delivery', 'description'];

function checkSupplied(body: Body, supplied: Supplied, requested: readonly string[]): void {
  const expected: Body = { iss: supplied.iss, aud: supplied.aud, events_supported: [...EVENTS_SUPPORTED], events_delivered: eventsDelivered(requested) };
  for (const name of READ_ONLY) {
    if (body[name] === undefined) continue;
    if (!(name in expected) || JSON.stringify(body[name]) !== JSON.stringify(expected[name])) throw new InvalidRequest(`${name} is set by the transmitter and differs from its value`);
  }
}

function eventsRequested(value: unknown): string[] {
  if (!Array.isArray(value) || value.length > MAX_EVENTS || value.some((e) => typeof e !== 'string' || e.length === 0 || e.length > MAX_URI)) {
    throw new InvalidRequest(`events_requested must be an array of at most ${MAX_EVENTS} event type URIs`);
  }
  return [...new Set(value as string[])];
}

/** `delivery`; a push stream's Authorization header in clear (sealed by the caller), `keep` when none is given. `internalAllowed`: the receiver may push to internal endpoints. */
function delivery(value: unknown, pollEndpoint: string | undefined, internalAllowed: boolean): { method: typeof PUSH_METHOD | typeof POLL_METHOD; endpointUrl?: string; authorization?: string } {
  const d = objectBody(value === undefined ? { method: POLL_METHOD } : value);
  only(d, ['method', 'endpoint_url', 'authorization_header']);
  if (d.method === POLL_METHOD) {
    // RFC 8936 via SSF 1.0 §8.1.1: the transmitter supplies the poll endpoint.
    if (d.endpoint_url !== undefined && d.endpoint_url !== pollEndpoint) throw new InvalidRequest('delivery.endpoint_url of a poll stream is set by the transmitter');
    if (d.authorization_header !== undefined) throw new InvalidRequest('delivery.authorization_header applies to push delivery only');
    return { method: POLL_METHOD };
  }
  if (d.method !== PUSH_METHOD) throw new InvalidRequest(`delivery.method must be one of ${DELIVERY_METHODS_SUPPORTED.join(', ')}`);
  const url = text(d.endpoint_url, 'delivery.endpoint_url', 2048);
  checkPushEndpoint(url, internalAllowed);
  const authorization = d.authorization_header === undefined ? undefined : text(d.authorization_header, 'delivery.authorization_header', MAX_AUTHORIZATION);
  if (authorization !== undefined && /[\r\n\0]/.test(authorization)) throw new InvalidRequest('delivery.authorization_header must be one header value');
  return { method: PUSH_METHOD, endpointUrl: url, ...(authorization !== undefined ? { authorization } : {}) };
}

/** Settings read from a request: the Authorization header (push) still in clear, to seal. */
export type RequestedSettings = Omit<StreamSettings, 'delivery'> & { delivery: ReturnType<typeof delivery> };

/** POST (create) and PUT (replace): every receiver-supplied member, the absent ones at their defaults. */
export function wholeSettings(body: Body, supplied: Supplied, pollEndpoint?: string, internalAllowed = false): RequestedSettings {
  only(body, [...RECEIVER, ...READ_ONLY, ...(supplied.streamId ? ['stream_id'] : [])]);
  const requested = body.events_requested === undefined ? [] : eventsRequested(body.events_requested);
  checkSupplied(body, supplied, requested);
  return { eventsRequested: requested, delivery: delivery(body.delivery, pollEndpoint, internalAllowed), ...(body.description !== undefined ? { description: text(body.description, 'description', MAX_TEXT) } : {}) };
}

/** PATCH: the members given, over the stream's current settings. */
export function patchedSettings(body: Body, supplied: Supplied, current: SsfStreamView, pollEndpoint?: string, internalAllowed = false): RequestedSettings {
  only(body, ['stream_id', ...RECEIVER, ...READ_ONLY]);
  const requested = body.events_requested === undefined ? current.eventsRequested : eventsRequested(body.events_requested);
  checkSupplied(body, supplied, requested);
  const currentDelivery = { method: current.delivery.method as typeof PUSH_METHOD | typeof POLL_METHOD, ...(current.delivery.endpointUrl ? { endpointUrl: current.delivery.endpointUrl } : {}) };
  const description = body.description === undefined ? current.description : text(body.description, 'description', MAX_TEXT);
  return { eventsRequested: requested, delivery: body.delivery === undefined ? currentDelivery : delivery(body.delivery, pollEndpoint, internalAllowed), ...(description !== undefined ? { description } : {}) };
}

/** The stream's configuration as SSF 1.0 §8.1.1 shows it. */
export function renderStream(s: SsfStreamView, issuer: string, pollEndpoint: string): Record<string, unknown> {
  return {
    stream_id: s.streamId,
    iss: issuer,
    aud: s.clientId,
    events_supported: [...EVENTS_SUPPORTED],
    events_requested: s.eventsRequested,
    events_delivered: eventsDelivered(s.eventsRequested),
    delivery: { method: s.delivery.method, endpoint_url: s.delivery.method === POLL_METHOD ? pollEndpoint : s.delivery.endpointUrl },
    ...(s.description !== undefined ? { description: s.description } : {}),
  };
}

/** POST to the status endpoint (SSF 1.0 §8.1.2.2). */
export function statusUpdate(body: Body): { streamId: string; status: StreamStatus; reason?: string } {
  only(body, ['stream_id', 'status', 'reason']);
  const streamId = streamIdOf(body.stream_id);
  if (!STATUSES.includes(body.status as StreamStatus)) throw new InvalidRequest(`status must be one of ${STATUSES.join(', ')}`);
  return { streamId, status: body.status as StreamStatus, ...(body.reason !== undefined ? { reason: text(body.reason, 'reason', MAX_TEXT) } : {}) };
}

/**
 * A subject of the add and remove endpoints (SSF 1.0 §8.1.3) as the key it is matched by: RFC
 * 9493 `iss_sub` of this issuer (its `sub` is the user id), or `email`. Other formats are
 * refused rather than held without ever matching.
 */
export function subjectKeyOf(value: unknown, issuer: string): string {
  const s = objectBody(value);
  if (s.format === 'iss_sub') {
    only(s, ['format', 'iss', 'sub']);
    if (s.iss !== issuer) throw new InvalidRequest('an iss_sub subject must name this issuer');
    return issSubKey(text(s.sub, 'subject.sub', 255));
  }
  if (s.format === 'email') {
    only(s, ['format', 'email']);
    const email = text(s.email, 'subject.email', 254);
    if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new InvalidRequest('subject.email must be an e-mail address');
    return emailKey(email);
  }
  throw new InvalidRequest('subject.format must be iss_sub or email');
}

export function subjectRequest(body: Body, issuer: string, adding: boolean): { streamId: string; subject: string } {
  only(body, ['stream_id', 'subject', ...(adding ? ['verified'] : [])]);
  if (adding && body.verified !== undefined && typeof body.verified !== 'boolean') throw new InvalidRequest('verified must be a boolean');
  return { streamId: streamIdOf(body.stream_id), subject: subjectKeyOf(body.subject, issuer) };
}

export function verificationRequest(body: Body): { streamId: string; state?: string } {
  only(body, ['stream_id', 'state']);
  return { streamId: streamIdOf(body.stream_id), ...(body.state !== undefined ? { state: text(body.state, 'state', MAX_TEXT) } : {}) };
}
