import type { SnapshotCodec } from '../../domain/shared/decider.js';
import type { ReadStore } from '../read-store/read-store.port.js';
import type { EventStore } from './event-store.port.js';

const VIEW = 'snapshots';

/** A stream's folded state up to the event `eventId` (at `revision` in the stream, `position` in the log). */
export interface Snapshot<S = unknown> {
  revision: number;
  eventId: string;
  position: number;
  state: S;
}

interface Saved {
  version: number;
  revision: number;
  eventId: string;
  state: unknown;
}

/**
 * Folded states of long streams, kept in the read store beside the views: loading such a
 * stream after a restart, or after the aggregate cache let it go, reads the events after its
 * snapshot instead of all of them. Derived data like the views: a snapshot that is missing,
 * saved under other rules (its codec's version) or not of this log (its last event is not
 * there) is passed over, and the stream is folded from the start.
 */
export class Snapshots {
  private ready?: Promise<void>;

  constructor(private readonly reads: ReadStore) {}

  /** The stream's snapshot, when there is one it can be folded on from. */
  async load<S>(streamId: string, codec: SnapshotCodec<S>, events: EventStore): Promise<Snapshot<S> | undefined> {
    await this.prepare();
    const saved = await this.reads.get<Saved>(VIEW, streamId);
    if (!saved || saved.version !== codec.version) return undefined;
    const [last] = await events.readStream(streamId, { fromRevision: saved.revision, maxCount: 1 });
    if (last?.id !== saved.eventId) return undefined;
    return { revision: saved.revision, eventId: saved.eventId, position: saved._position, state: codec.decode(saved.state) };
  }

  /** Saves in the background: a snapshot lost costs a longer load, nothing else. */
  save<S>(streamId: string, snapshot: Snapshot<S>, codec: SnapshotCodec<S>): void {
    const doc: Saved = { version: codec.version, revision: snapshot.revision, eventId: snapshot.eventId, state: codec.encode(snapshot.state) };
    void this.prepare()
      .then(() => this.reads.commit(VIEW, [{ id: streamId, doc: { ...doc }, position: snapshot.position }], snapshot.position))
      .catch(() => undefined);
  }

  private prepare(): Promise<void> {
    this.ready ??= this.reads.prepareView(VIEW, 1, []);
    return this.ready;
  }
}
