import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CONFIG, type Config } from '../config.js';
import type { BackchannelLogoutEvent } from '../domain/delivery/backchannel-logout.events.js';
import { EVENT_STORE, type EventStore } from '../infrastructure/event-store/event-store.port.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { retryDelay, type DeliverySettings } from './delivery-settings.js';
import { type Delivery, deliveryKey, DeliveryStore } from './delivery-store.js';
import { DueHeap } from './due-heap.js';
import { LogoutTokens } from './logout-token.js';

/** How often the clock is read for deliveries that became due (their delays are measured on the injected Clock). */
const TICK_MS = 100;

export const backchannelStream = (tenantId: string, deliveryId: string) => `backchannellogout-${tenantId}.${deliveryId}`;

interface Outcome {
  status?: number;
  error?: string;
}

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
 * Attempts the pending deliveries: each receiver (scheme, host and port) has its own queue and
 * at most `perReceiver` POSTs in flight, so a slow or dead receiver holds up none but its own.
 * A failed attempt is retried after a growing delay, on the injected Clock, until the retry
 * window closes; then the delivery is dead-lettered. Each outcome is an event in the log.
 */
@Injectable()
export class BackchannelSender {
  private readonly settings: DeliverySettings;
  private readonly deliveries = new Map<string, Delivery>();
  private readonly waiting = new DueHeap();
  private readonly receivers = new Map<string, Receiver>();
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private pumpScheduled = false;
  private stopped = false;
  /** Where failures of the sender's own bookkeeping are reported. */
  logger?: (message: string) => void;

  constructor(
    @Inject(CONFIG) config: Config,
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(LogoutTokens) private readonly tokens: LogoutTokens,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {
    this.settings = config.delivery;
  }

  start(): void {
    this.timer = setInterval(() => this.pump(), TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  /** Deliveries waiting for an attempt (due or not) and in flight. */
  get backlog(): number {
    return this.deliveries.size;
  }

  /** Takes a pending delivery, to attempt once its `nextAttemptAt` has come. */
  enqueue(d: Delivery): void {
    const key = deliveryKey(d.tenantId, d.deliveryId);
    if (this.deliveries.has(key)) return;
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
    for (const key of this.waiting.popDue(this.clock.now().getTime())) {
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
    const outcome = await this.post(d);
    release();
    const nowDate = this.clock.now();
    const now = nowDate.getTime();
    const attempts = d.attempts + 1;
    const firstAttemptAt = d.firstAttemptAt ?? now;
    const fields = { tenantId: d.tenantId, deliveryId: d.deliveryId, clientId: d.clientId, sessionId: d.sessionId, userId: d.userId, attempts };
    const reported = { ...(outcome.status !== undefined ? { status: outcome.status } : {}), ...(outcome.error !== undefined ? { error: outcome.error } : {}) };
    const base = { ...d, attempts, firstAttemptAt, updatedAt: nowDate.toISOString(), ...(outcome.status !== undefined ? { lastStatus: outcome.status } : {}), ...(outcome.error !== undefined ? { lastError: outcome.error } : {}) };
    if (outcome.error === undefined) delete base.lastError;
    if (outcome.status === undefined) delete base.lastStatus;
    let event: BackchannelLogoutEvent;
    let next: Delivery | undefined;
    if (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300) {
      event = { type: 'BackchannelLogoutDelivered', data: { ...fields, status: outcome.status } };
    } else {
      const at = now + retryDelay(this.settings, attempts, Math.random());
      if (at - firstAttemptAt > this.settings.retryWindowMs) {
        event = { type: 'BackchannelLogoutDeadLettered', data: { ...fields, ...reported } };
        next = { ...base, status: 'dead' };
      } else {
        event = { type: 'BackchannelLogoutFailed', data: { ...fields, ...reported, nextAttemptAt: new Date(at).toISOString() } };
        next = { ...base, status: 'pending', nextAttemptAt: at };
      }
    }
    try {
      await this.events.append(backchannelStream(d.tenantId, d.deliveryId), [{ id: randomUUID(), type: event.type, data: event.data, metadata: { tenantId: d.tenantId, actor: 'system', correlationId: d.deliveryId, causationId: d.causeEventId, occurredAt: nowDate.toISOString(), schemaVersion: 1 } }], 'any');
      await this.store.save(next ?? base, next === undefined);
    } catch (error) {
      // The outcome could not be recorded: the attempt counts for nothing and is made again
      // (a receiver may get the token twice, which at-least-once allows).
      this.logger?.(`back-channel logout ${d.deliveryId}: outcome not recorded, retrying: ${(error as Error).message}`);
      next = { ...d, nextAttemptAt: now + this.settings.firstRetryMs };
    }
    if (next?.status === 'pending' && !this.stopped) {
      this.deliveries.set(key, next);
      this.waiting.push(next.nextAttemptAt, key);
    } else {
      this.deliveries.delete(key);
    }
  }

  /** One POST of a fresh logout token (§2.5): form-encoded, never following a redirect, within the timeout. */
  private async post(d: Delivery): Promise<Outcome> {
    try {
      const token = await this.tokens.sign(d);
      const response = await fetch(d.uri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: token }).toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      await response.body?.cancel().catch(() => undefined);
      return { status: response.status };
    } catch (error) {
      return { error: describe(error) };
    }
  }
}

/** A short, safe description of why a POST failed (no response at all). */
function describe(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timeout';
  const reason = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? 'request failed';
  return String(reason).slice(0, 200);
}
