import type { AppendResult, EventData, EventStore, ExpectedRevision, ReadAllOptions, ReadStreamOptions, RecordedEvent, StreamAppend, Subscription, EventFilter } from './event-store.port.js';
import { upcast } from './upcasters.js';

/**
 * The read boundary of the log: every event read, by a decider's fold or by the projections,
 * comes out in the newest shape of its type (see upcasters.ts), whichever adapter stored it.
 */
export class UpcastingEventStore implements EventStore {
  /** Offered when the inner store offers it. */
  readonly appendTogether?: (appends: readonly StreamAppend[]) => Promise<AppendResult[]>;

  constructor(private readonly inner: EventStore) {
    if (inner.appendTogether) this.appendTogether = (appends) => inner.appendTogether!(appends);
  }

  get exclusive(): boolean {
    return this.inner.exclusive;
  }

  append(streamId: string, events: readonly EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.inner.append(streamId, events, expected);
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return (await this.inner.readStream(streamId, options)).map(upcast);
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return (await this.inner.readAll(options)).map(upcast);
  }

  async readPositions(positions: readonly number[]): Promise<RecordedEvent[]> {
    return (await this.inner.readPositions(positions)).map(upcast);
  }

  subscribeToAll(options?: { afterPosition?: number; filter?: EventFilter }): Subscription {
    const inner = this.inner.subscribeToAll(options);
    return {
      close: () => inner.close(),
      [Symbol.asyncIterator]() {
        const events = inner[Symbol.asyncIterator]();
        // One mapped promise per event, not an async generator's round of promises.
        return {
          next: () => events.next().then((r) => (r.done ? r : { done: false, value: upcast(r.value) })),
          return: async (value?: unknown) => (await events.return?.(value)) ?? { done: true, value: undefined },
        };
      },
    };
  }

  expireStream(streamId: string, at: number): Promise<void> {
    return this.inner.expireStream(streamId, at);
  }

  sweepExpired(now: number, limit: number): Promise<number> {
    return this.inner.sweepExpired(now, limit);
  }

  headPosition(): Promise<number> {
    return this.inner.headPosition();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
