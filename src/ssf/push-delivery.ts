import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ssfStreamKey, type SsfStreamView } from '../../projections/ssf-streams.projection.js';
import { DeliveryKinds, type DeliveryFollowerSpec, type DeliveryKind, type Gate, outcomeTypes, type RenderedRequest } from '../delivery/delivery-kind.js';
import { type Delivery, DeliveryStore } from '../delivery/delivery-store.js';
import type { Answer } from '../delivery/receiver-pools.js';
import { setRefusal } from '../delivery/refusals.js';
import { PUSH_METHOD } from '../domain/ssf/ssf-stream.events.js';
import type { RecordedEvent } from '../infrastructure/event-store/event-store.port.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';
import { Directory } from '../shared/directory.js';
import { pushEndpointRefusal } from './push-endpoint.js';
import { SecurityEventTokens, type SetClaims } from './security-event-tokens.js';
import { SET_SOURCE_TYPES, SET_VIEWS, SetTargets } from './set-targets.js';
import { SsfStreams } from './ssf-streams.js';

/** Marks render's error for an endpoint the receiver may no longer name, so that `refusal` knows it. */
const ENDPOINT_REFUSED = 'endpoint refused: ';

/** The kind of a pushed SET's delivery. */
export const SSF_PUSH = 'ssf_push';

/** What a pushed SET's delivery carries: its stream and what the SET says (signed anew at each attempt, with the same jti). */
export interface PushDeliveryData extends SetClaims {
  streamId: string;
  clientId: string;
}

const ssfPushStream = (tenantId: string, deliveryId: string) => `ssfpush-${tenantId}.${deliveryId}`;

/**
 * Push delivery (RFC 8935) as a kind of the shared delivery machinery: its follower makes one
 * delivery per SET of a push stream (held while the stream is paused, released when it is
 * enabled again); each attempt POSTs the SET, signed now with the tenant's current key, to the
 * stream's endpoint as it stands, with its Authorization header. A deleted or disabled
 * stream's deliveries are dropped (SSF 1.0 §8.1.2: a disabled stream holds nothing).
 */
@Injectable()
export class SsfPushKind implements DeliveryKind<PushDeliveryData>, DeliveryFollowerSpec, OnModuleInit {
  readonly kind = SSF_PUSH;
  readonly outcomeTypes = outcomeTypes('SsfSet');
  readonly checkpoint = 'ssf_push_follower';
  readonly eventTypes = [...SET_SOURCE_TYPES, 'SsfStreamStatusChanged'];
  readonly views = SET_VIEWS;

  constructor(
    @Inject(DeliveryKinds) private readonly kinds: DeliveryKinds,
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SetTargets) private readonly targets: SetTargets,
    @Inject(SecurityEventTokens) private readonly tokens: SecurityEventTokens,
    @Inject(SsfStreams) private readonly streams: SsfStreams,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  onModuleInit(): void {
    this.kinds.register(this, this);
  }

  async deliveriesOf(batch: readonly RecordedEvent[], now: Date): Promise<Delivery[]> {
    const out: Delivery[] = [];
    const tenantStreams = new Map<string, SsfStreamView[]>();
    for (const e of batch) {
      if (e.type === 'SsfStreamStatusChanged') {
        const d = e.data as { tenantId: string; streamId: string; status: string };
        if (d.status === 'enabled') out.push(...(await this.released(d.tenantId, d.streamId, now)));
        continue;
      }
      for (const { stream, claims } of await this.targets.of(e, tenantStreams)) {
        if (stream.delivery.method !== PUSH_METHOD || !stream.delivery.endpointUrl) continue;
        out.push({
          tenantId: stream.tenantId,
          // The jti is already one per event and stream, the same at every read.
          deliveryId: claims.jti,
          kind: SSF_PUSH,
          receiverId: stream.streamId,
          uri: stream.delivery.endpointUrl,
          data: { streamId: stream.streamId, clientId: stream.clientId, ...claims },
          cause: e.type,
          causeEventId: e.id,
          status: stream.status === 'paused' ? 'held' : 'pending',
          attempts: 0,
          nextAttemptAt: now.getTime(),
          createdAt: now.toISOString(),
          updatedAt: now.toISOString(),
        } satisfies Delivery<PushDeliveryData>);
      }
    }
    return out;
  }

  /** A stream enabled again: its held SETs are sent, with a fresh retry window. */
  private async released(tenantId: string, streamId: string, now: Date): Promise<Delivery[]> {
    const held = await this.store.held(tenantId, SSF_PUSH, streamId);
    return held.map(({ firstAttemptAt: _f, ...d }) => ({ ...d, status: 'pending' as const, nextAttemptAt: now.getTime(), updatedAt: now.toISOString() }));
  }

  private stream(d: Delivery<PushDeliveryData>): Promise<SsfStreamView | null> {
    return this.reads.get<SsfStreamView>('ssf_streams', ssfStreamKey(d.tenantId, d.data.streamId));
  }

  async gate(d: Delivery<PushDeliveryData>): Promise<Gate> {
    const s = await this.stream(d);
    if (!s || s.status === 'disabled' || s.delivery.method !== PUSH_METHOD) return 'drop';
    return s.status === 'paused' ? 'hold' : 'send';
  }

  /** RFC 8935 §2: the SET as the body, `application/secevent+jwt`; an answer in JSON when it is refused. */
  async render(d: Delivery<PushDeliveryData>): Promise<RenderedRequest> {
    const s = await this.stream(d);
    if (!s?.delivery.endpointUrl) throw new Error('the stream no longer exists or is no longer pushed');
    // The endpoint is checked again as the receiver stands now: an administrator may have taken its flag away.
    const internalAllowed = (await this.directory.client(d.tenantId, s.clientId))?.ssfPushInternalEndpoints === true;
    const refused = pushEndpointRefusal(s.delivery.endpointUrl, internalAllowed);
    if (refused !== undefined) throw new Error(`${ENDPOINT_REFUSED}${refused}`);
    const { streamId: _s, clientId: _c, ...claims } = d.data;
    const set = await this.tokens.sign(d.tenantId, claims);
    if (!set) throw new Error(`tenant ${d.tenantId} no longer exists`);
    const authorization = this.streams.authorizationOf(s);
    return {
      url: s.delivery.endpointUrl,
      headers: { 'content-type': 'application/secevent+jwt', accept: 'application/json', ...(authorization !== undefined ? { authorization } : {}) },
      body: set,
      // A name is resolved at each connection: only a public address is connected to.
      publicOnly: !internalAllowed,
    };
  }

  /** RFC 8935 §2.3: a 400 with an `err` rejects this SET; it is dead-lettered at once with the receiver's error. */
  refusal(answer: Answer): string | undefined {
    // An endpoint this receiver may no longer name is refused until an administrator acts: retrying cannot help.
    if (answer.status === undefined && answer.error?.startsWith(ENDPOINT_REFUSED)) return answer.error.slice(ENDPOINT_REFUSED.length);
    return setRefusal(answer);
  }

  outcomeStream(d: Delivery<PushDeliveryData>): string {
    return ssfPushStream(d.tenantId, d.deliveryId);
  }

  outcomeFields(d: Delivery<PushDeliveryData>): Record<string, unknown> {
    return { streamId: d.data.streamId, clientId: d.data.clientId, jti: d.data.jti };
  }

  represent(d: Delivery<PushDeliveryData>): Record<string, unknown> {
    return { stream_id: d.data.streamId, client_id: d.data.clientId, jti: d.data.jti, url: d.uri };
  }
}
