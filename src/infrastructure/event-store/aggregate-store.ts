import { createHash, randomUUID } from 'node:crypto';
import { fold, type Decider, type DomainEvent, type SnapshotCodec } from '../../domain/shared/decider.js';
import { setBounded } from '../../shared/bounded-map.js';
import { Turns } from '../../shared/turns.js';
import {
  type EventData,
  type EventMetadata,
  type EventStore,
  type RecordedEvent,
  type RequestOrigin,
  WrongExpectedRevisionError,
} from './event-store.port.js';
import type { Snapshots } from './snapshots.js';
import { schemaVersionOf } from './upcasters.js';

/** Who runs a command and on whose behalf, from which request (its origin); `now` is the injected time. */
export interface CommandContext extends Partial<RequestOrigin> {
  tenantId?: string;
  actor: string;
  causationId?: string;
  now: Date;
  /** When set, event ids derive from it, so a retried command appends nothing twice. */
  commandId?: string;
  /**
   * The stream revision the caller decided on (an HTTP `If-Match`): any other revision fails
   * the command with WrongExpectedRevisionError, without deciding again.
   */
  expectedRevision?: number;
}

export interface Outcome<E, S, R = undefined> {
  events: E[];
  state: S;
  /** Global position of the last appended event; 0 when nothing was appended. */
  position: number;
  /** What `alongside` made of the decision (undefined when nothing was decided). */
  alongside?: R;
}

/**
 * Work on a decision that runs while its events are being made durable (signing the tokens
 * the events describe, say), so the request thread uses the wait. Its result is returned
 * only once the append succeeded; on a conflict it is discarded and runs again on the next
 * decision.
 */
export type Alongside<E, S, R> = (events: E[], state: S) => R | Promise<R>;

interface Cached {
  revision: number;
  state: unknown;
  /** The revision at which the stream's state is next saved (see snapshotDue). */
  snapshotDue: number;
}

/** The last event folded into a state: what a snapshot of it names. */
interface LastEvent {
  id: string;
  position: number;
}

const CACHE_LIMIT = 20_000;
/**
 * Events a stream whose decider has a snapshot codec grows by before its state is saved again:
 * SNAPSHOT_EVERY (a load folds at most that many after the snapshot, about 12 ms), or one per
 * SNAPSHOT_CHARS_PER_EVENT characters of a larger state, so that saving costs each event a
 * bounded share however large the state grows.
 */
const SNAPSHOT_EVERY = 2000;
const SNAPSHOT_CHARS_PER_EVENT = 50;
const snapshotDue = (revision: number, chars = 0) => revision + Math.max(SNAPSHOT_EVERY, Math.ceil(chars / SNAPSHOT_CHARS_PER_EVENT));
/** Decisions tried per command when appends conflict. */
const ATTEMPTS = 5;

/**
 * Runs a decider over one stream: fold, decide, append with the expected revision
 * (optimistic concurrency), and on a conflict fold again and decide again. Folded states
 * are cached per stream: with an exclusive store they are current (every append of this
 * process passes here); otherwise they are caught up from their revision. Either way the
 * expected-revision check guards every append.
 *
 * Within this process, commands on one stream take turns: each decides once the append of
 * the one before has settled. Deciding them all on the same state would let only one of a
 * batch of appends through and send the others round the retry loop until it gave up (ten
 * parallel requests in one browser session did). Conflicts with other processes still retry.
 */
export class AggregateStore {
  private readonly cache = new Map<string, Cached>();
  /** Commands on one stream take turns; a turn ends when its command's append has settled. */
  private readonly turns = new Turns();

  constructor(
    private readonly events: EventStore,
    /** Where the states of long streams are saved between loads; without it, a load not cached reads the whole stream. */
    private readonly snapshots?: Snapshots,
  ) {}

  async load<E extends DomainEvent, S>(streamId: string, decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve' | 'snapshot'>): Promise<{ state: S; revision: number }> {
    const { state, revision } = await this.current(streamId, decider);
    return { state: state as S, revision };
  }

  /** The stream's state now: cached, or folded on from the cached state, from its snapshot, or from the start. */
  private async current<E extends DomainEvent, S>(streamId: string, decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve' | 'snapshot'>): Promise<Cached> {
    const cached = this.cache.get(streamId);
    if (cached && this.events.exclusive) return cached;
    const { start, recorded, last } = cached
      ? { start: cached, recorded: await this.events.readStream(streamId, { fromRevision: cached.revision + 1 }), last: undefined }
      : await this.coldStart(streamId, decider.snapshot);
    const base = (start?.state as S | undefined) ?? decider.initialState;
    const state = recorded.length ? fold({ initialState: base, evolve: decider.evolve }, recorded as unknown as E[]) : base;
    const newest = recorded.at(-1);
    const folded = { revision: newest?.revision ?? start?.revision ?? -1, state, snapshotDue: start?.snapshotDue ?? snapshotDue(-1) };
    const lastEvent = newest ?? last;
    return lastEvent ? this.remember(streamId, folded, lastEvent, decider.snapshot) : folded;
  }

  /**
   * Where a load with nothing cached starts: the stream's snapshot and the events after it, when
   * the snapshot holds for this log (the event it was folded up to is here, at its revision);
   * otherwise every event. A snapshot that cannot be read is passed over like a missing one.
   */
  private async coldStart<S>(streamId: string, codec: SnapshotCodec<S> | undefined): Promise<{ start?: Cached; recorded: RecordedEvent[]; last?: LastEvent }> {
    const snapshot = codec && this.snapshots ? await this.snapshots.load(streamId, codec).catch(() => undefined) : undefined;
    if (snapshot) {
      const recorded = await this.events.readStream(streamId, { fromRevision: snapshot.revision });
      if (recorded[0]?.id === snapshot.eventId && recorded[0].revision === snapshot.revision) {
        const start = { revision: snapshot.revision, state: snapshot.state, snapshotDue: snapshotDue(snapshot.revision, snapshot.chars) };
        return { start, recorded: recorded.slice(1), last: { id: snapshot.eventId, position: snapshot.position } };
      }
    }
    return { recorded: await this.events.readStream(streamId) };
  }

  async execute<C, E extends DomainEvent, S, R = undefined>(
    streamId: string,
    decider: Decider<C, E, S>,
    command: C,
    ctx: CommandContext,
    alongside?: Alongside<E, S, R>,
  ): Promise<Outcome<E, S, R>> {
    if (decider.stateless) return this.decideAndRecord(streamId, decider, command, ctx, alongside);
    const endTurn = await this.turns.take(streamId);
    try {
      return await this.decideAndAppend(streamId, decider, command, ctx, alongside, endTurn);
    } finally {
      endTurn();
    }
  }

  private async decideAndAppend<C, E extends DomainEvent, S, R>(
    streamId: string,
    decider: Decider<C, E, S>,
    command: C,
    ctx: CommandContext,
    alongside: Alongside<E, S, R> | undefined,
    endTurn: () => void,
  ): Promise<Outcome<E, S, R>> {
    for (let attempt = 1; ; attempt++) {
      const folded = await this.current(streamId, decider);
      const { revision } = folded;
      if (ctx.expectedRevision !== undefined && revision !== ctx.expectedRevision) throw new WrongExpectedRevisionError(streamId, ctx.expectedRevision, revision === -1 ? 'no_stream' : revision);
      const state = folded.state as S;
      const decided = decider.decide(command, state);
      if (decided.length === 0) return { events: [], state, position: 0 };
      try {
        const next = decided.reduce(decider.evolve, state);
        const data = toEventData(decided, ctx);
        // The state is remembered as soon as the events are durable, not after the work, and
        // the next command on the stream may decide from then on.
        const appended = this.events.append(streamId, data, revision === -1 ? 'no_stream' : revision).then((result) => {
          const last = { id: data[data.length - 1].id, position: result.position };
          this.remember(streamId, { revision: result.nextRevision, state: next, snapshotDue: folded.snapshotDue }, last, decider.snapshot);
          endTurn();
          return result;
        });
        // Both settle before either is reported: a conflict is retried whatever the work did.
        const [result, extra] = await Promise.allSettled([appended, alongside && Promise.resolve().then(() => alongside(decided, next))]);
        if (result.status === 'rejected') throw result.reason;
        if (extra.status === 'rejected') throw extra.reason;
        return { events: decided, state: next, position: result.value.position, alongside: extra.value };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        this.cache.delete(streamId);
        if (attempt >= ATTEMPTS || ctx.expectedRevision !== undefined) throw error;
      }
    }
  }

  /**
   * A stateless decider's command: decided on its initial state and appended at any revision,
   * without loading the stream or waiting for a turn on it (nothing it holds could change the
   * decision, so appends on one stream need not queue).
   */
  private async decideAndRecord<C, E extends DomainEvent, S, R>(streamId: string, decider: Decider<C, E, S>, command: C, ctx: CommandContext, alongside: Alongside<E, S, R> | undefined): Promise<Outcome<E, S, R>> {
    // An expected revision could only be checked by loading the stream, which this path never does.
    if (ctx.expectedRevision !== undefined) throw new Error(`${streamId}: a stateless decision has no revision to expect`);
    const state = decider.initialState;
    const decided = decider.decide(command, state);
    if (decided.length === 0) return { events: [], state, position: 0 };
    this.cache.delete(streamId);
    const appended = this.events.append(streamId, toEventData(decided, ctx), 'any');
    const [result, extra] = await Promise.allSettled([appended, alongside && Promise.resolve().then(() => alongside(decided, state))]);
    if (result.status === 'rejected') throw result.reason;
    if (extra.status === 'rejected') throw extra.reason;
    return { events: decided, state, position: result.value.position, alongside: extra.value };
  }

  /** Appends facts that need no decision (nothing to check against the stream's state). */
  /**
   * Appends `events` as the start of a stream that must not exist yet (rule 5): true when
   * this call created it, false when it was there already (on any server of the log).
   */
  async claim(streamId: string, events: readonly DomainEvent[], ctx: CommandContext): Promise<boolean> {
    try {
      await this.events.append(streamId, toEventData(events, ctx), 'no_stream');
      return true;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) return false;
      throw error;
    }
  }

  async record(streamId: string, events: readonly DomainEvent[], ctx: CommandContext): Promise<number> {
    this.cache.delete(streamId);
    return (await this.events.append(streamId, toEventData(events, ctx), 'any')).position;
  }

  /**
   * `claim` as claim() does, and `record` as record() does only when the claim was fresh: the
   * record's position, or undefined when the claimed stream was there already (nothing of
   * either appended). One atomic append where the store offers one; elsewhere (EventStoreDB)
   * the claim, then the record, so a record that fails leaves the claim made.
   */
  async claimAndRecord(claim: { streamId: string; events: readonly DomainEvent[] }, record: { streamId: string; events: readonly DomainEvent[] }, ctx: CommandContext): Promise<number | undefined> {
    if (!this.events.appendTogether) return (await this.claim(claim.streamId, claim.events, ctx)) ? this.record(record.streamId, record.events, ctx) : undefined;
    this.cache.delete(record.streamId);
    // One call, so that the events share their metadata and a command id numbers them all.
    const data = toEventData([...claim.events, ...record.events], ctx);
    try {
      const [, recorded] = await this.events.appendTogether([
        { streamId: claim.streamId, events: data.slice(0, claim.events.length), expected: 'no_stream' },
        { streamId: record.streamId, events: data.slice(claim.events.length), expected: 'any' },
      ]);
      return recorded.position;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError && error.streamId === claim.streamId) return undefined;
      throw error;
    }
  }

  /**
   * Keeps the folded state of a stream, never replacing a later revision with an earlier one,
   * and saves a snapshot of it when one is due.
   */
  private remember<S>(streamId: string, folded: Cached, last: LastEvent, codec?: SnapshotCodec<S>): Cached {
    if ((this.cache.get(streamId)?.revision ?? -1) > folded.revision) return folded;
    if (codec && this.snapshots && folded.revision >= folded.snapshotDue) {
      const chars = this.snapshots.save(streamId, { revision: folded.revision, eventId: last.id, position: last.position, state: folded.state as S }, codec);
      folded = { ...folded, snapshotDue: snapshotDue(folded.revision, chars) };
    }
    setBounded(this.cache, streamId, folded, CACHE_LIMIT);
    return folded;
  }
}

function toEventData(events: readonly DomainEvent[], ctx: CommandContext): EventData[] {
  // Set by assignment, in the order the log has always shown (see domain/shared/merged.ts).
  const metadata = {} as EventMetadata;
  if (ctx.tenantId) metadata.tenantId = ctx.tenantId;
  metadata.actor = ctx.actor;
  metadata.correlationId = ctx.correlationId ?? randomUUID();
  if (ctx.causationId) metadata.causationId = ctx.causationId;
  if (ctx.sourceIp) metadata.sourceIp = ctx.sourceIp;
  if (ctx.userAgent) metadata.userAgent = ctx.userAgent;
  metadata.occurredAt = ctx.now.toISOString();
  metadata.schemaVersion = 1;
  return events.map((e, i) => {
    const version = schemaVersionOf(e.type);
    return { id: ctx.commandId ? uuidFrom(`${ctx.commandId}#${i}`) : randomUUID(), type: e.type, data: e.data, metadata: version === 1 ? metadata : { ...metadata, schemaVersion: version } };
  });
}

/** A name-based UUID (version 8 layout) from SHA-256 of the name. */
function uuidFrom(name: string): string {
  const h = createHash('sha256').update(name).digest();
  h[6] = (h[6] & 0x0f) | 0x80;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
