import { Inject, Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { EVENT_STORE, type EventStore, type Subscription } from '../infrastructure/event-store/event-store.port.js';
import { Directory } from '../shared/directory.js';
import { FEED_SOURCE_TYPES, type IntegrationEvent, integrationEvent, tenantOf } from './integration-events.js';

const SCAN_PAGE = 500;

export interface FeedPage {
  events: IntegrationEvent[];
  /** Where the next read starts: past every event read, whether or not it was the tenant's. */
  next: number;
}

/**
 * A tenant's integration events read from the log in its order, after a cursor (a log
 * position); and a signal when new ones may have arrived, so that waiting readers (long polls,
 * streams) read again at once instead of polling.
 */
@Injectable()
export class EventFeed {
  private readonly arrivals = new EventEmitter();
  private subscription?: Subscription;
  private loop?: Promise<void>;
  private readonly stopping = new AbortController();

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(Directory) private readonly directory: Directory,
  ) {
    this.arrivals.setMaxListeners(0);
  }

  async start(): Promise<void> {
    const sub = (this.subscription = this.events.subscribeToAll({ afterPosition: await this.events.headPosition(), filter: { eventTypes: FEED_SOURCE_TYPES } }));
    this.loop = (async () => {
      try {
        for await (const e of sub) {
          const tenantId = tenantOf(e);
          if (tenantId) this.arrivals.emit(tenantId, e.position);
        }
      } catch {
        // The subscription closed with the store; readers still read the log.
      }
    })();
  }

  /** Aborted when the server stops: streams and long polls end, so that their connections let it close. */
  get closing(): AbortSignal {
    return this.stopping.signal;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.subscription?.close();
    await this.loop;
  }

  /** The live end: a cursor after every event in the log now. */
  head(): Promise<number> {
    return this.events.headPosition();
  }

  /** Up to `limit` of the tenant's events after `after`, in log order. */
  async page(tenantId: string, after: number, limit: number): Promise<FeedPage> {
    const issuer = this.directory.issuer(tenantId);
    const out: IntegrationEvent[] = [];
    let next = after;
    for (;;) {
      const batch = await this.events.readAll({ afterPosition: next, maxCount: SCAN_PAGE, filter: { eventTypes: FEED_SOURCE_TYPES } });
      for (const e of batch) {
        next = e.position;
        if (tenantOf(e) !== tenantId) continue;
        const mapped = integrationEvent(e, issuer);
        if (!mapped) continue;
        out.push(mapped);
        if (out.length === limit) return { events: out, next };
      }
      if (batch.length < SCAN_PAGE) return { events: out, next };
    }
  }

  /**
   * The page after `after`; when it is empty, waits up to `waitMs` (or until `signal` aborts)
   * for the tenant's next event and reads again. The listener is in place before the first
   * read, so an event appended between the read and the wait is not missed.
   */
  async pageOrWait(tenantId: string, after: number, limit: number, waitMs: number, signal?: AbortSignal): Promise<FeedPage> {
    if (waitMs <= 0) return this.page(tenantId, after, limit);
    let arrived = false;
    let wake: (() => void) | undefined;
    const onArrival = (position: number) => {
      if (position <= after) return;
      arrived = true;
      wake?.();
    };
    let expired = false;
    const expire = () => {
      expired = true;
      wake?.();
    };
    this.arrivals.on(tenantId, onArrival);
    const timer = setTimeout(expire, waitMs);
    signal?.addEventListener('abort', expire, { once: true });
    try {
      let page = await this.page(tenantId, after, limit);
      // An arrival may be another event than the feed shows (a grant's end told as token.revoked): read until one is shown or the wait ends.
      while (!page.events.length && !expired) {
        if (!arrived) await new Promise<void>((resolve) => (wake = resolve));
        arrived = false;
        page = await this.page(tenantId, page.next, limit);
      }
      return page;
    } finally {
      clearTimeout(timer);
      this.arrivals.off(tenantId, onArrival);
      signal?.removeEventListener('abort', expire);
    }
  }
}
