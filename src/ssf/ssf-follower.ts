import { Inject, Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { ssfStreamKey, type SsfStreamView } from '../../projections/ssf-streams.projection.js';
import { POLL_METHOD } from '../domain/ssf/ssf-stream.events.js';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../infrastructure/event-store/event-store.port.js';
import { LogTail } from '../infrastructure/event-store/log-tail.js';
import { Clock } from '../infrastructure/nest/clock.js';
import type { LeaseFence } from '../infrastructure/read-store/lease.port.js';
import { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';
import { SecurityEventTokens } from './security-event-tokens.js';
import { type PendingSet, SetStore } from './set-store.js';
import { SET_SOURCE_TYPES, SET_VIEWS, SetTargets } from './set-targets.js';

/** Besides the events that make SETs: those that end what a stream holds. */
const SOURCE_TYPES = [...SET_SOURCE_TYPES, 'SsfStreamDeleted', 'SsfStreamStatusChanged'];

/**
 * Poll delivery's follower: follows the log from its own checkpoint and turns each event a poll
 * stream asked for into one signed SET for that stream, stored with the checkpoint in one step:
 * a crash between the event and the poll loses none, since either the SETs are stored or the
 * event is read again at the next start. `arrivals` tells waiting pollers (`<tenant>/<stream>`)
 * that SETs were stored. With several servers on one store it runs on one of them at a time,
 * under a lease (ssf-follower-lease.ts) whose fence every commit carries: a follower that was
 * replaced cannot put back a SET that a receiver acknowledged meanwhile.
 */
@Injectable()
export class SsfFollower {
  readonly arrivals = new EventEmitter();
  logger?: (message: string) => void;
  /**
   * Several servers: SETs may be stored by another server's follower, whose arrivals this one
   * does not hear, so a waiting long poll reads the store again this often (milliseconds).
   */
  recheckMs?: number;
  /** Told when a commit under the lease's `fence` was refused: the lease passed to another server. */
  onLeaseLost?: (fence: number) => void;
  private fence?: LeaseFence;
  private tail?: LogTail;
  private readonly stopping = new AbortController();

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(ProjectionRunner) private readonly runner: ProjectionRunner,
    @Inject(SetStore) private readonly store: SetStore,
    @Inject(SecurityEventTokens) private readonly tokens: SecurityEventTokens,
    @Inject(SetTargets) private readonly targets: SetTargets,
    @Inject(Clock) private readonly clock: Clock,
  ) {
    this.arrivals.setMaxListeners(0);
  }

  /** Follows the log from the stored checkpoint; `fence`: under a lease, which each commit must still hold. */
  async start(fence?: LeaseFence): Promise<void> {
    this.fence = fence;
    const tail = (this.tail = new LogTail(this.events, {
      name: 'shared signals follower',
      eventTypes: SOURCE_TYPES,
      handle: (batch) => this.handle(batch),
      onLeaseLost: () => this.onLeaseLost?.(fence?.fence ?? 0),
      logger: (m) => this.logger?.(m),
    }));
    tail.start(await this.store.prepare());
  }

  /** Aborted when the server stops: long polls end, so that their connections let it close. */
  get closing(): AbortSignal {
    return this.stopping.signal;
  }

  /** Stops following; what it stored stays, and a later `start` (here or on another server) goes on from there. */
  async stop(): Promise<void> {
    await this.tail?.stop();
    this.tail = undefined;
  }

  /** The server stops: long polls end too. */
  async close(): Promise<void> {
    this.stopping.abort();
    await this.stop();
  }

  private async handle(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1].position;
    await this.runner.waitFor(SET_VIEWS, last, 30_000);
    const created: PendingSet[] = [];
    const dropped: PendingSet[] = [];
    const closed = new Set<string>();
    const tenantStreams = new Map<string, SsfStreamView[]>();
    for (const e of batch) {
      const d = e.data as { tenantId: string; streamId?: string; status?: string };
      if (e.type === 'SsfStreamDeleted' || (e.type === 'SsfStreamStatusChanged' && d.status === 'disabled')) {
        // SSF 1.0 §8.1.2.1: a disabled stream holds no events; a deleted one has none left.
        dropped.push(...(await this.store.pending(d.tenantId, d.streamId!)));
        closed.add(ssfStreamKey(d.tenantId, d.streamId!));
        continue;
      }
      for (const { stream, claims } of await this.targets.of(e, tenantStreams)) {
        if (stream.delivery.method !== POLL_METHOD) continue;
        const set = await this.tokens.sign(stream.tenantId, claims);
        if (set) created.push({ tenantId: stream.tenantId, streamId: stream.streamId, jti: claims.jti, set, position: e.position, createdAt: this.clock.now().toISOString() });
      }
    }
    const kept = created.filter((s) => !closed.has(ssfStreamKey(s.tenantId, s.streamId)));
    await this.store.commit(kept, dropped, last, this.fence);
    for (const s of kept) this.arrivals.emit(ssfStreamKey(s.tenantId, s.streamId));
  }
}
