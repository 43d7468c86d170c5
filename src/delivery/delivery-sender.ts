import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CONFIG, type Config } from '../config.js';
import { EVENT_STORE, type EventStore } from '../infrastructure/event-store/event-store.port.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { DeliveryKinds, type DeliveryKind, type Outcome, type RenderedRequest, type UnsignedRequest } from './delivery-kind.js';
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
  private readonly pools: PostingThread;
  private timer?: NodeJS.Timeout;
  private pumpScheduled = false;
  private stopped = false;
  /** Where failures of the sender's own bookkeeping are reported. */
  logger?: (message: string) => void;

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
    if (d.status !== 'pending' || this.deliveries.has(key)) return;
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
        r.active++;
        let released = false;
        // The receiver's slot is free once its POST is answered; the outcome is recorded after.
        const release = () => {
          if (released) return;
          released = true;
          r.active--;
          this.schedulePump();
        };
        const attempt: Promise<void> = this.attempt(key, d, release).finally(() => {
          release();
          this.inFlight.delete(attempt);
        });
        this.inFlight.add(attempt);
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
    const outcome = await this.post(kind, d);
    release();
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
      if (at - firstAttemptAt > this.settings.retryWindowMs) {
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
    if (next?.status === 'pending' && !this.stopped) {
      this.deliveries.set(key, next);
      this.waiting.push(next.nextAttemptAt, key);
    } else {
      this.deliveries.delete(key);
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
}
