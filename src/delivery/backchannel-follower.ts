import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { type BackchannelSessionView } from '../../projections/backchannel-sessions.projection.js';
import type { ClientView } from '../../projections/clients.projection.js';
import type { ClientEvent } from '../domain/client/client.events.js';
import { streams } from '../domain/shared/stream-names.js';
import { EVENT_STORE, type EventStore, type RecordedEvent, type Subscription } from '../infrastructure/event-store/event-store.port.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { ProjectionRunner } from '../infrastructure/read-store/projection-runner.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';
import { BackchannelSender } from './backchannel-sender.js';
import { type Delivery, DeliveryStore } from './delivery-store.js';

/**
 * The events that end sessions (Back-Channel Logout 1.0 §2): a session revoked (logout, a
 * refresh replay, an administrator, another user signing in), a user disabled or deleted, a
 * client deleted. Expiry is not one.
 */
const ENDING = ['SessionRevoked', 'UserDisabled', 'UserDeleted', 'ClientDeleted'];

/** The views read to find who gets a logout token; the follower waits for them to pass each event. */
const VIEWS = ['backchannel_sessions', 'clients'];
const RETRY_MS = 1000;

interface Target {
  sessionId: string;
  userId: string;
  clientId: string;
}

/**
 * Follows the log from its own checkpoint and turns each event that ends sessions into one
 * delivery per client of the session with a `backchannel_logout_uri`, stored with the
 * checkpoint in one step: a crash (even kill -9) between the logout and the POST loses none,
 * since either the deliveries are stored or the event is read again at the next start.
 */
@Injectable()
export class BackchannelFollower {
  private subscription?: Subscription;
  private loop?: Promise<void>;
  private stopped = false;
  logger?: (message: string) => void;

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(ProjectionRunner) private readonly runner: ProjectionRunner,
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(BackchannelSender) private readonly sender: BackchannelSender,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async start(): Promise<void> {
    const after = await this.store.prepare();
    for (const d of await this.store.pending()) this.sender.enqueue(d);
    const sub = (this.subscription = this.events.subscribeToAll({ afterPosition: after, filter: { eventTypes: ENDING } }));
    this.loop = (async () => {
      try {
        for await (const e of sub) {
          if (this.stopped) break;
          this.buffer.push(e);
          this.draining ??= new Promise((r) => setImmediate(r)).then(() => this.drain());
        }
      } catch (error) {
        if (!this.stopped) this.logger?.(`back-channel logout follower stopped: ${(error as Error).message}`);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.close();
    await this.loop;
    await this.draining;
  }

  private buffer: RecordedEvent[] = [];
  private draining?: Promise<void>;

  /** Handles the buffered events batch by batch; a batch is retried until its deliveries are stored, since skipping it would lose them. */
  private async drain(): Promise<void> {
    while (this.buffer.length && !this.stopped) {
      const batch = this.buffer;
      this.buffer = [];
      try {
        await this.handle(batch);
      } catch (error) {
        this.buffer = [...batch, ...this.buffer];
        this.logger?.(`back-channel logout: events up to ${batch[batch.length - 1].position} not handled, retrying: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
    this.draining = undefined;
  }

  /** The deliveries of a batch of events, stored with the position of its last event in one step. */
  private async handle(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1].position;
    await this.runner.waitFor(VIEWS, last, 30_000);
    const now = this.clock.now();
    const deliveries: Delivery[] = [];
    for (const e of batch) {
      if (!ENDING.includes(e.type)) continue;
      const tenantId = (e.data as { tenantId: string }).tenantId;
      const receivers = new Map<string, string | undefined>();
      for (const t of await this.targets(e)) {
        if (!receivers.has(t.clientId)) receivers.set(t.clientId, await this.receiverOf(tenantId, t.clientId, e));
        const uri = receivers.get(t.clientId);
        if (!uri) continue;
        deliveries.push({
          tenantId,
          deliveryId: deliveryIdOf(e.id, t.sessionId, t.clientId),
          ...t,
          uri,
          cause: e.type,
          causeEventId: e.id,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: now.getTime(),
          createdAt: now.toISOString(),
          updatedAt: now.toISOString(),
        });
      }
    }
    await this.store.created(deliveries, last);
    for (const d of deliveries) this.sender.enqueue(d);
  }

  /** The sessions the event ends and, for each, the clients that had grants in it. */
  private async targets(e: RecordedEvent): Promise<Target[]> {
    const d = e.data as { tenantId: string; sessionId?: string; userId?: string; clientId?: string; grants?: Array<{ clientId: string }>; kept?: Array<{ clientId: string }> };
    if (e.type === 'SessionRevoked') {
      // Clients whose offline grants outlive the logout (kept) still learn that the session ended (§2.7).
      const clients = new Set([...(d.grants ?? []), ...(d.kept ?? [])].map((g) => g.clientId));
      return [...clients].map((clientId) => ({ sessionId: d.sessionId!, userId: d.userId!, clientId }));
    }
    const filter: Record<string, string> = e.type === 'ClientDeleted' ? { tenantId: d.tenantId, clientId: d.clientId! } : { tenantId: d.tenantId, userId: d.userId! };
    const sessions = await this.reads.find<BackchannelSessionView>('backchannel_sessions', filter);
    // Sessions begun after the event (read later, on a restart) are not ended by it.
    return sessions.filter((s) => s.since < e.position).map((s) => ({ sessionId: s.sessionId, userId: s.userId, clientId: s.clientId }));
  }

  /** The client's `backchannel_logout_uri`; of a deleted client, the last one it registered (read from its stream). */
  private async receiverOf(tenantId: string, clientId: string, e: RecordedEvent): Promise<string | undefined> {
    if (e.type !== 'ClientDeleted') {
      const client = await this.reads.get<ClientView>('clients', `${tenantId}/${clientId}`);
      if (client) return client.backchannelLogoutUri;
    }
    const history = (await this.events.readStream(streams.client(tenantId, clientId))) as unknown as Array<RecordedEvent & ClientEvent>;
    const registration = history.filter((h) => h.type === 'ClientCreated' || h.type === 'ClientUpdated').pop();
    return registration && (registration.type === 'ClientCreated' || registration.type === 'ClientUpdated') ? registration.data.backchannelLogoutUri : undefined;
  }
}

/** A delivery's id, the same whenever the event is read again. */
function deliveryIdOf(eventId: string, sessionId: string, clientId: string): string {
  return createHash('sha256').update(`${eventId}\n${sessionId}\n${clientId}`).digest('base64url').slice(0, 22);
}
