import { Logger } from '@nestjs/common';
import type { SnapshotCodec } from '../../domain/shared/decider.js';
import { constantTimeEqual } from '../crypto/hashing.js';
import type { KeyEncryption } from '../crypto/key-encryption.js';
import type { ReadStore } from '../read-store/read-store.port.js';
import { OncePerMinute } from '../../shared/failure-budget.js';

const VIEW = 'snapshots';
/** Raised whenever what a snapshot document holds changes shape (the view is emptied). */
const VIEW_VERSION = 2;
/** A state whose text is longer is not saved (a MongoDB document holds at most 16 MB). */
const MAX_STATE_CHARS = 8 * 1024 * 1024;

/**
 * A stream's folded state up to the event `eventId`, at `revision` in the stream and
 * `position` in the log. A loaded one holds for the stream only if the log has that event at
 * that revision: the caller checks.
 */
export interface Snapshot<S = unknown> {
  revision: number;
  eventId: string;
  position: number;
  state: S;
  /** The length of its saved text, when it was loaded. */
  chars?: number;
}

interface Saved {
  version: number;
  revision: number;
  eventId: string;
  /** The encoded state as JSON text. */
  state: string;
  /** Keyed hash of the stream id and all of the above: a read store is no place to trust with a decision. */
  mac: string;
}

/**
 * Folded states of long streams, kept in the read store beside the views: loading such a
 * stream after a restart, or after the aggregate cache let it go, reads the events after its
 * snapshot instead of all of them. Derived data like the views: a snapshot that is missing,
 * saved under other rules (its codec's version), altered (its keyed hash), or not of this log
 * is passed over, and the stream is folded from the start.
 */
export class Snapshots {
  private ready?: Promise<void>;
  private readonly logger = new Logger('Snapshots');
  /** A store that refuses every snapshot would otherwise flood the log. */
  private readonly warnings = new OncePerMinute((line) => this.logger.warn(line));

  constructor(
    private readonly reads: ReadStore,
    private readonly keys: KeyEncryption,
  ) {}

  /** The stream's saved state, when one was saved under the codec's rules and is intact. */
  async load<S>(streamId: string, codec: SnapshotCodec<S>): Promise<Snapshot<S> | undefined> {
    await this.prepare();
    const saved = await this.reads.get<Saved>(VIEW, streamId);
    if (!saved || saved.version !== codec.version || typeof saved.state !== 'string' || typeof saved.mac !== 'string') return undefined;
    if (!constantTimeEqual(saved.mac, this.mac(streamId, saved))) return undefined;
    return { revision: saved.revision, eventId: saved.eventId, position: saved._position, state: codec.decode(JSON.parse(saved.state)), chars: saved.state.length };
  }

  /**
   * Saves in the background, and never throws: a snapshot lost costs a longer load, nothing
   * else. Returns the length of the state's text (0 when it could not be encoded).
   */
  save<S>(streamId: string, snapshot: Snapshot<S>, codec: SnapshotCodec<S>): number {
    let state = '';
    try {
      state = JSON.stringify(codec.encode(snapshot.state));
      if (state.length > MAX_STATE_CHARS) {
        this.warn(streamId, `its state is ${state.length} characters long`);
        return state.length;
      }
      const saved = { version: codec.version, revision: snapshot.revision, eventId: snapshot.eventId, state };
      const doc = { ...saved, mac: this.mac(streamId, saved) };
      void this.prepare()
        .then(() => this.reads.commit(VIEW, [{ id: streamId, doc, position: snapshot.position }], snapshot.position))
        .catch((e: unknown) => this.warn(streamId, String(e)));
    } catch (e) {
      this.warn(streamId, String(e));
    }
    return state.length;
  }

  private mac(streamId: string, s: Omit<Saved, 'mac'>): string {
    return this.keys.keyedHash('snapshot', JSON.stringify([streamId, s.version, s.revision, s.eventId, s.state]));
  }

  private warn(streamId: string, why: string): void {
    this.warnings.log(`snapshot of ${streamId} not saved: ${why}`);
  }

  /** Prepares the view once; a failed attempt is tried again on the next use. */
  private prepare(): Promise<void> {
    this.ready ??= this.reads.prepareView(VIEW, VIEW_VERSION, []).catch((e: unknown) => {
      this.ready = undefined;
      throw e;
    });
    return this.ready;
  }
}
