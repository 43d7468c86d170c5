import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { type BackchannelSessionView } from '../../projections/backchannel-sessions.projection.js';
import type { ClientView } from '../../projections/clients.projection.js';
import type { ClientEvent } from '../domain/client/client.events.js';
import { streams } from '../domain/shared/stream-names.js';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../infrastructure/event-store/event-store.port.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';
import { BACKCHANNEL_LOGOUT, type LogoutDeliveryData } from './backchannel-delivery.js';
import type { DeliveryFollowerSpec } from './delivery-kind.js';
import type { Delivery } from './delivery-store.js';

/**
 * The events that end sessions (Back-Channel Logout 1.0 §2): a session revoked (logout, a
 * refresh replay, an administrator, another user signing in), a user disabled or deleted, a
 * client deleted. Expiry is not one.
 */
const ENDING = ['SessionRevoked', 'UserDisabled', 'UserDeleted', 'ClientDeleted'];

/** The views read to find who gets a logout token; the follower waits for them to pass each event. */
const VIEWS = ['backchannel_sessions', 'clients'];

interface Target {
  sessionId: string;
  userId: string;
  clientId: string;
}

/**
 * Which events make logout tokens: each event that ends sessions makes one delivery per client
 * of the session with a `backchannel_logout_uri`.
 */
@Injectable()
export class BackchannelFollower implements DeliveryFollowerSpec {
  readonly checkpoint = 'backchannel_follower';
  readonly eventTypes = ENDING;
  readonly views = VIEWS;

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  async deliveriesOf(batch: readonly RecordedEvent[], now: Date): Promise<Delivery[]> {
    const deliveries: Delivery[] = [];
    for (const e of batch) {
      const tenantId = (e.data as { tenantId: string }).tenantId;
      const receivers = new Map<string, string | undefined>();
      for (const t of await this.targets(e)) {
        if (!receivers.has(t.clientId)) receivers.set(t.clientId, await this.receiverOf(tenantId, t.clientId, e));
        const uri = receivers.get(t.clientId);
        if (!uri) continue;
        const data: LogoutDeliveryData = { clientId: t.clientId, sessionId: t.sessionId, userId: t.userId };
        deliveries.push({
          tenantId,
          deliveryId: deliveryIdOf(e.id, t.sessionId, t.clientId),
          kind: BACKCHANNEL_LOGOUT,
          receiverId: t.clientId,
          uri,
          data,
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
    return deliveries;
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
