import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { ssfStreamKey, type SsfStreamView } from '../../projections/ssf-streams.projection.js';
import { userKey, type UserView } from '../../projections/users.projection.js';
import { EVENT_STORE, type EventStore, type RecordedEvent, type Subscription } from '../infrastructure/event-store/event-store.port.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';
import { Directory } from '../shared/directory.js';
import { eventsDelivered, SIGNAL_SOURCE_TYPES, SSF_EVENTS, subjectFor, userSignal } from './security-events.js';
import { SecurityEventTokens } from './security-event-tokens.js';
import { type PendingSet, SetStore } from './set-store.js';

/** Stream events the follower acts on besides the user signals. */
const STREAM_TYPES = ['SsfVerificationRequested', 'SsfStreamDeleted', 'SsfStreamStatusChanged'];
const SOURCE_TYPES = [...SIGNAL_SOURCE_TYPES, ...STREAM_TYPES];
/** The views read to find a signal's streams and subject; the follower waits for them to pass each event. */
const VIEWS = ['ssf_streams', 'users'];
const RETRY_MS = 1000;

/** Where SETs of push streams go once they are stored (push delivery); poll streams are read by their receiver. */
export interface PushQueue {
  enqueue(set: PendingSet, stream: SsfStreamView): void;
}

/** A SET's jti: the same whenever the event is read again for the stream. */
const jtiOf = (eventId: string, streamId: string) => createHash('sha256').update(`${eventId}\n${streamId}`).digest('base64url').slice(0, 22);

/**
 * Follows the log from its own checkpoint and turns each event a stream asked for into one SET
 * for that stream, stored with the checkpoint in one step: a crash between the event and the
 * delivery loses none, since either the SETs are stored or the event is read again at the next
 * start. `arrivals` tells waiting pollers (`<tenant>/<stream>`) that SETs were stored.
 */
@Injectable()
export class SsfFollower {
  readonly arrivals = new EventEmitter();
  pushQueue?: PushQueue;
  logger?: (message: string) => void;
  private subscription?: Subscription;
  private loop?: Promise<void>;
  private stopped = false;
  private buffer: RecordedEvent[] = [];
  private draining?: Promise<void>;
  private readonly stopping = new AbortController();

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(ProjectionRunner) private readonly runner: ProjectionRunner,
    @Inject(SetStore) private readonly store: SetStore,
    @Inject(SecurityEventTokens) private readonly tokens: SecurityEventTokens,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Clock) private readonly clock: Clock,
  ) {
    this.arrivals.setMaxListeners(0);
  }

  async start(): Promise<void> {
    const after = await this.store.prepare();
    const sub = (this.subscription = this.events.subscribeToAll({ afterPosition: after, filter: { eventTypes: SOURCE_TYPES } }));
    this.loop = (async () => {
      try {
        for await (const e of sub) {
          if (this.stopped) break;
          this.buffer.push(e);
          this.draining ??= new Promise((r) => setImmediate(r)).then(() => this.drain());
        }
      } catch (error) {
        if (!this.stopped) this.logger?.(`shared signals follower stopped: ${(error as Error).message}`);
      }
    })();
  }

  /** Aborted when the server stops: long polls end, so that their connections let it close. */
  get closing(): AbortSignal {
    return this.stopping.signal;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    await this.subscription?.close();
    await this.loop;
    await this.draining;
  }

  /** Handles the buffered events batch by batch; a batch is retried until its SETs are stored, since skipping it would lose them. */
  private async drain(): Promise<void> {
    while (this.buffer.length && !this.stopped) {
      const batch = this.buffer;
      this.buffer = [];
      try {
        await this.handle(batch);
      } catch (error) {
        this.buffer = [...batch, ...this.buffer];
        this.logger?.(`shared signals: events up to ${batch[batch.length - 1].position} not handled, retrying: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
    this.draining = undefined;
  }

  private async handle(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1].position;
    await this.runner.waitFor(VIEWS, last, 30_000);
    const created: Array<{ set: PendingSet; stream: SsfStreamView }> = [];
    const dropped: PendingSet[] = [];
    const closed = new Set<string>();
    for (const e of batch) {
      const d = e.data as { tenantId: string; streamId?: string; status?: string; state?: string };
      if (e.type === 'SsfStreamDeleted' || (e.type === 'SsfStreamStatusChanged' && d.status === 'disabled')) {
        // SSF 1.0 §8.1.2.1: a disabled stream holds no events; a deleted one has none left.
        dropped.push(...(await this.store.pending(d.tenantId, d.streamId!)));
        closed.add(ssfStreamKey(d.tenantId, d.streamId!));
        continue;
      }
      if (e.type === 'SsfStreamStatusChanged') continue;
      if (e.type === 'SsfVerificationRequested') {
        const stream = await this.reads.get<SsfStreamView>('ssf_streams', ssfStreamKey(d.tenantId, d.streamId!));
        if (!stream || stream.status === 'disabled') continue;
        // SSF 1.0 §8.1.4.1: the verification event names the stream as an opaque subject and echoes `state`.
        const set = await this.setFor(e, stream, { format: 'opaque', id: stream.streamId }, { [SSF_EVENTS.verification]: d.state !== undefined ? { state: d.state } : {} });
        if (set) created.push({ set, stream });
        continue;
      }
      const signal = userSignal(e);
      if (!signal) continue;
      const streams = (await this.reads.find<SsfStreamView>('ssf_streams', { tenantId: d.tenantId })).filter(
        // Streams begun after the event (read later, on a restart) are not told of it.
        (s) => s.status !== 'disabled' && s.since < e.position && eventsDelivered(s.eventsRequested).includes(signal.eventType),
      );
      if (!streams.length) continue;
      const user = await this.reads.get<UserView>('users', userKey(d.tenantId, signal.userId));
      const email = typeof user?.claims.email === 'string' ? user.claims.email : undefined;
      for (const stream of streams) {
        const subId = subjectFor(stream.subjects, this.directory.issuer(d.tenantId), signal, email);
        if (!subId) continue;
        const set = await this.setFor(e, stream, subId, { [signal.eventType]: signal.payload });
        if (set) created.push({ set, stream });
      }
    }
    const kept = created.filter((c) => !closed.has(ssfStreamKey(c.set.tenantId, c.set.streamId)));
    await this.store.commit(
      kept.map((c) => c.set),
      dropped,
      last,
    );
    for (const { set, stream } of kept) {
      this.arrivals.emit(ssfStreamKey(set.tenantId, set.streamId));
      if (stream.delivery.method !== 'urn:ietf:rfc:8936') this.pushQueue?.enqueue(set, stream);
    }
  }

  private async setFor(e: RecordedEvent, stream: SsfStreamView, subId: Record<string, unknown>, events: Record<string, Record<string, unknown>>): Promise<PendingSet | undefined> {
    const jti = jtiOf(e.id, stream.streamId);
    const set = await this.tokens.sign(stream.tenantId, { jti, aud: stream.clientId, subId, events });
    if (!set) return undefined;
    return { tenantId: stream.tenantId, streamId: stream.streamId, jti, set, position: e.position, createdAt: this.clock.now().toISOString() };
  }
}
