import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { ssfStreamKey, type SsfStreamView } from '../../projections/ssf-streams.projection.js';
import { userKey, type UserView } from '../../projections/users.projection.js';
import type { RecordedEvent } from '../infrastructure/event-store/event-store.port.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';
import { Directory } from '../shared/directory.js';
import { eventsDelivered, SIGNAL_SOURCE_TYPES, SSF_EVENTS, subjectFor, userSignal } from './security-events.js';
import type { SetClaims } from './security-event-tokens.js';

/** The log events that make SETs. */
export const SET_SOURCE_TYPES: readonly string[] = [...SIGNAL_SOURCE_TYPES, 'SsfVerificationRequested'];
/** The views read to find an event's streams and subject: a follower waits for them to pass the event. */
export const SET_VIEWS: readonly string[] = ['ssf_streams', 'users'];

/** One SET one event makes for one stream. */
export interface SetTarget {
  stream: SsfStreamView;
  claims: SetClaims;
}

/** A SET's jti: the same whenever the event is read again for the stream (and whatever the delivery method). */
const jtiOf = (eventId: string, streamId: string) => createHash('sha256').update(`${eventId}\n${streamId}`).digest('base64url').slice(0, 22);

/**
 * Which streams are told of a log event, and what their SET says: a user signal goes to every
 * stream not disabled, begun before the event, that requested its type and holds a subject
 * naming the user; a verification request to its stream.
 */
@Injectable()
export class SetTargets {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  /**
   * `tenantStreams` is the caller's cache of each tenant's streams for one batch of events: a
   * batch of many user signals reads them once, not once per event.
   */
  async of(e: RecordedEvent, tenantStreams?: Map<string, SsfStreamView[]>): Promise<SetTarget[]> {
    const d = e.data as { tenantId: string; streamId?: string; state?: string };
    const claims = (stream: SsfStreamView, subId: Record<string, unknown>, events: SetClaims['events']) => ({ stream, claims: { jti: jtiOf(e.id, stream.streamId), aud: stream.clientId, subId, events } });
    if (e.type === 'SsfVerificationRequested') {
      const stream = await this.reads.get<SsfStreamView>('ssf_streams', ssfStreamKey(d.tenantId, d.streamId!));
      if (!stream || stream.status === 'disabled') return [];
      // SSF 1.0 §8.1.4.1: the verification event names the stream as an opaque subject and echoes `state`.
      return [claims(stream, { format: 'opaque', id: stream.streamId }, { [SSF_EVENTS.verification]: d.state !== undefined ? { state: d.state } : {} })];
    }
    const signal = userSignal(e);
    if (!signal) return [];
    const streams = (await this.streamsOf(d.tenantId, tenantStreams)).filter(
      // Streams begun after the event (read later, on a restart) are not told of it.
      (s) => s.status !== 'disabled' && s.since < e.position && eventsDelivered(s.eventsRequested).includes(signal.eventType),
    );
    if (!streams.length) return [];
    const user = await this.reads.get<UserView>('users', userKey(d.tenantId, signal.userId));
    const email = typeof user?.claims.email === 'string' ? user.claims.email : undefined;
    const out: SetTarget[] = [];
    for (const stream of streams) {
      const subId = subjectFor(stream.subjects, this.directory.issuer(d.tenantId), signal, email);
      if (subId) out.push(claims(stream, subId, { [signal.eventType]: signal.payload }));
    }
    return out;
  }

  private async streamsOf(tenantId: string, cache?: Map<string, SsfStreamView[]>): Promise<SsfStreamView[]> {
    let found = cache?.get(tenantId);
    if (!found) {
      found = await this.reads.find<SsfStreamView>('ssf_streams', { tenantId });
      cache?.set(tenantId, found);
    }
    return found;
  }
}
