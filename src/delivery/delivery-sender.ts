import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CONFIG, type Config } from '../config.js';
import { EVENT_STORE, type EventStore } from '../infrastructure/event-store/event-store.port.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { DeliveryKinds, type DeliveryKind, type Outcome, type RenderedRequest, type UnsignedRequest } from './delivery-kind.js';
import { partitionOf } from './delivery-partitions.js';
import { retryDelay, type DeliverySettings } from './delivery-settings.js';
import { type Delivery, deliveryKey, DeliveryStore } from './delivery-store.js';
import { DueHeap } from './due-heap.js';
import { PostingThread } from './posting-thread.js';
import type { Answer } from './receiver-pools.js';

/** How often the clock is read for deliveries that became due (their delays are measured on the injected Clock). */
const TICK_MS = 100;

/** A first-in first-out queue of keys (a shifted array costs its length at each shift). */
class Fifo {
  private items: string[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(key: string): void {
    this.items.push(key);
  }
  shift(): string | undefined {
    const key = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return key;
  }
}

interface Receiver {
  active: number;
  ready: Fifo;
}

/**
 * Attempts the pending deliveries of every kind: each receiver (scheme, host and port) has its own queue and
 * at most `perReceiver` POSTs in flight, so a slow or dead receiver holds up none but its own.
 * A failed attempt is retried after a growing delay, on the injected Clock, until the retry
 * window closes; then the delivery is dead-lettered. Each outcome is an event in the log, of
 * the types and on the stream its kind names; the request of each attempt is its kind's too.
 */
@Injectable()
export class DeliverySender {
  private readonly settings: DeliverySettings;
  private readonly deliveries = new Map<string, Delivery>();
  private readonly waiting = new DueHeap();
  private readonly receivers = new Map<string, Receiver>();
  private readonly inFlight = new Set<Promise<void>>();
  /** The attempts in flight of each partition, for `drop` to wait for those of one only. */
  private readonly inFlightIn = new Map<number, Set<Promise<void>>>();
  private readonly pools: PostingThread;
  private timer?: NodeJS.Timeout;
  private pumpScheduled = false;
  private stopped = false;
  /** Where failures of the sender's own bookkeeping are reported. */
  logger?: (message: string) => void;
  /** The partitions this server sends, when several share the deliveries (delivery-shares.ts); absent: all of them. */
  owns?: (partition: number) => boolean;
  /** Deliveries that left this sender (delivered, dead-lettered), each with its rank: what a read of the store begun before then may still show as pending. */
  private readonly settled = new Map<string, number>();
  private settledCount = 0;

  constructor(
    @Inject(CONFIG) config: Config,
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(DeliveryKinds) private readonly kinds: DeliveryKinds,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {
    this.settings = config.delivery;
    this.pools = new PostingThread(this.settings.perReceiver, this.settings.timeoutMs);
  }

  start(): void {
    this.timer = setInterval(() => this.pump(), TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
    await this.pools.close();
  }

  /** Deliveries waiting for an attempt (due or not) and in flight. */
  get backlog(): number {
    return this.deliveries.size;
  }

  /** Takes a pending delivery, to attempt once its `nextAttemptAt` has come. */
  enqueue(d: Delivery): void {
    const key = deliveryKey(d.tenantId, d.deliveryId);
    if (d.status !== 'pending' || this.deliveries.has(key) || !this.sends(d)) return;
    this.deliveries.set(key, d);
    this.waiting.push(d.nextAttemptAt, key);
    this.schedulePump();
  }

  /** Puts a dead letter back: attempted at once, with a fresh retry window. */
  async redeliver(d: Delivery): Promise<Delivery> {
    const now = this.clock.now();
    const { firstAttemptAt: _first, ...rest } = d;
    const again: Delivery = { ...rest, status: 'pending', attempts: 0, nextAttemptAt: now.getTime(), updatedAt: now.toISOString() };
    await this.store.save(again);
    this.enqueue(again);
    return again;
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.stopped) return;
    const now = this.clock.now().getTime();
    for (const key of this.waiting.popDue(now)) {
      const d = this.deliveries.get(key);
      if (d) this.receiver(d.uri).ready.push(key);
    }
    for (const [origin, r] of this.receivers) {
      while (r.active < this.settings.perReceiver && r.ready.length) {
        const key = r.ready.shift()!;
        const d = this.deliveries.get(key);
        if (!d) continue;
        // A partition whose lease is about to lapse unrenewed takes no new attempt; a read of the store gives it back once renewed.
        if (!this.sends(d)) {
          this.deliveries.delete(key);
          continue;
        }
        r.active++;
        let released = false;
        // The receiver's slot is free once its POST is answered; the outcome is recorded after.
        const release = () => {
          if (released) return;
          released = true;
          r.active--;
          this.schedulePump();
        };
        const partition = partitionOf(d.uri);
        const attempt: Promise<void> = this.attempt(key, d, release).finally(() => {
          release();
          this.inFlight.delete(attempt);
          const of = this.inFlightIn.get(partition);
          of?.delete(attempt);
          if (of?.size === 0) this.inFlightIn.delete(partition);
        });
        this.inFlight.add(attempt);
        let of = this.inFlightIn.get(partition);
        if (!of) this.inFlightIn.set(partition, (of = new Set()));
        of.add(attempt);
      }
      if (r.active === 0 && r.ready.length === 0) this.receivers.delete(origin);
    }
  }

  private receiver(uri: string): Receiver {
    const origin = URL.canParse(uri) ? new URL(uri).origin : uri;
    let r = this.receivers.get(origin);
    if (!r) this.receivers.set(origin, (r = { active: 0, ready: new Fifo() }));
    return r;
  }

  private async attempt(key: string, d: Delivery, release: () => void): Promise<void> {
    const kind = this.kinds.get(d.kind);
    if (!kind) {
      // Stays stored as it is, attempted at the next start of a server that knows its kind.
      this.logger?.(`delivery ${d.deliveryId}: no renderer for kind ${d.kind}`);
      this.deliveries.delete(key);
      return;
    }
    if (kind.gate && !(await this.passes(kind, key, d))) return;
    const answer = await this.post(kind, d);
    release();
    // Asked of every failure, a request the kind could not render included (no status then).
    const refusal = answer.status === undefined || answer.status < 200 || answer.status >= 300 ? kind.refusal?.(answer) : undefined;
    const outcome: Answer = refusal !== undefined ? { status: answer.status, error: refusal } : answer;
    const nowDate = this.clock.now();
    const now = nowDate.getTime();
    const attempts = d.attempts + 1;
    const firstAttemptAt = d.firstAttemptAt ?? now;
    const fields = { tenantId: d.tenantId, deliveryId: d.deliveryId, ...kind.outcomeFields(d), attempts };
    const reported = { ...(outcome.status !== undefined ? { status: outcome.status } : {}), ...(outcome.error !== undefined ? { error: outcome.error } : {}) };
    const base = { ...d, attempts, firstAttemptAt, updatedAt: nowDate.toISOString(), ...(outcome.status !== undefined ? { lastStatus: outcome.status } : {}), ...(outcome.error !== undefined ? { lastError: outcome.error } : {}) };
    if (outcome.error === undefined) delete base.lastError;
    if (outcome.status === undefined) delete base.lastStatus;
    let event: { type: string; data: Record<string, unknown> };
    let result: Outcome;
    let next: Delivery | undefined;
    if (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300) {
      event = { type: kind.outcomeTypes.delivered, data: { ...fields, status: outcome.status } };
      result = 'delivered';
    } else {
      const at = now + retryDelay(this.settings, attempts, Math.random());
      // A refusal is dead-lettered at once: the receiver would refuse every retry the same way.
      if (refusal !== undefined || at - firstAttemptAt > this.settings.retryWindowMs) {
        event = { type: kind.outcomeTypes.deadLettered, data: { ...fields, ...reported } };
        result = 'dead';
        next = { ...base, status: 'dead' };
      } else {
        event = { type: kind.outcomeTypes.failed, data: { ...fields, ...reported, nextAttemptAt: new Date(at).toISOString() } };
        result = 'failed';
        next = { ...base, status: 'pending', nextAttemptAt: at };
      }
    }
    let recorded: number | undefined;
    try {
      const { position } = await this.events.append(kind.outcomeStream(d), [{ id: randomUUID(), type: event.type, data: event.data, metadata: { tenantId: d.tenantId, actor: 'system', correlationId: d.deliveryId, causationId: d.causeEventId, occurredAt: nowDate.toISOString(), schemaVersion: 1 } }], 'any');
      await this.store.save(next ?? base, next === undefined);
      recorded = position;
    } catch (error) {
      // The outcome could not be recorded: the attempt counts for nothing and is made again
      // (a receiver may get the message twice, which at-least-once allows).
      this.logger?.(`${d.kind} delivery ${d.deliveryId}: outcome not recorded, retrying: ${(error as Error).message}`);
      next = { ...d, nextAttemptAt: now + this.settings.firstRetryMs };
    }
    if (next?.status === 'pending' && !this.stopped && this.sends(next)) {
      this.deliveries.set(key, next);
      this.waiting.push(next.nextAttemptAt, key);
    } else {
      this.deliveries.delete(key);
      this.settle(key);
    }
    if (recorded !== undefined && kind.afterOutcome) {
      await kind.afterOutcome(next ?? base, result, recorded).catch((error: Error) => this.logger?.(`${d.kind} delivery ${d.deliveryId}: after ${result}: ${error.message}`));
    }
  }

  /**
   * Whether the kind lets the delivery be attempted now. One it holds is stored as held and
   * leaves the queue; the gate is asked again after, so that a release the kind made while it
   * was being stored (it found no held delivery yet) does not leave it held.
   */
  private async passes(kind: DeliveryKind, key: string, d: Delivery): Promise<boolean> {
    try {
      const gate = await kind.gate!(d);
      if (gate === 'send') return true;
      this.deliveries.delete(key);
      if (gate === 'drop') {
        await this.store.save(d, true);
        return false;
      }
      await this.store.save({ ...d, status: 'held', updatedAt: this.clock.now().toISOString() });
      if ((await kind.gate!(d)) === 'send') {
        const again: Delivery = { ...d, status: 'pending', nextAttemptAt: this.clock.now().getTime() };
        await this.store.save(again);
        this.enqueue(again);
      }
    } catch (error) {
      this.logger?.(`${d.kind} delivery ${d.deliveryId}: not attempted, retrying: ${(error as Error).message}`);
      const later: Delivery = { ...d, nextAttemptAt: this.clock.now().getTime() + this.settings.firstRetryMs };
      if (!this.sends(later)) return false;
      this.deliveries.set(key, later);
      this.waiting.push(later.nextAttemptAt, key);
    }
    return false;
  }

  /** One POST of the request the kind renders now: never following a redirect, within the timeout. */
  private async post(kind: DeliveryKind, d: Delivery): Promise<Answer> {
    let request: RenderedRequest | UnsignedRequest;
    try {
      request = await kind.render(d);
    } catch (error) {
      return { error: String((error as Error)?.message ?? 'request failed').slice(0, 200) };
    }
    return this.pools.post(request);
  }

  // Sharing the deliveries with other servers (delivery-shares.ts): which ones this sender takes.

  private sends(d: Delivery): boolean {
    return this.owns === undefined || this.owns(partitionOf(d.uri));
  }

  private settle(key: string): void {
    if (this.owns !== undefined) this.settled.set(key, ++this.settledCount);
  }

  /** A mark to take before reading pending deliveries from the store, for `adopt`. */
  get mark(): number {
    return this.settledCount;
  }

  /**
   * Takes the pending deliveries a read of the store found (made by another server's follower,
   * or before this server held their partition), but none that left this sender after the read
   * began (`mark`): the read may show one just delivered as still pending.
   */
  adopt(found: readonly Delivery[], mark: number): void {
    for (const d of found) {
      const key = deliveryKey(d.tenantId, d.deliveryId);
      if ((this.settled.get(key) ?? 0) <= mark) this.enqueue(d);
    }
  }

  /** Forgets what settled before `mark`: a read begun after it shows them as they are. */
  forgetSettled(mark: number): void {
    for (const [key, rank] of this.settled) if (rank <= mark) this.settled.delete(key);
  }

  /**
   * Stops sending a partition this server no longer holds (`owns` says so already): its
   * waiting deliveries are forgotten, and its attempts in flight finish with their outcomes
   * stored, so that the next holder reads each as it stands. Other partitions' attempts are
   * not waited for.
   */
  async drop(partition: number): Promise<void> {
    for (const [key, d] of this.deliveries) if (partitionOf(d.uri) === partition) this.deliveries.delete(key);
    // Nothing of it stays queued: taken again later, a delivery is queued once only.
    this.waiting.retain((key) => this.deliveries.has(key));
    for (const [origin, r] of this.receivers) if (partitionOf(origin) === partition) r.ready = new Fifo();
    await Promise.allSettled([...(this.inFlightIn.get(partition) ?? [])]);
  }
}
