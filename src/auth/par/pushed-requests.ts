import { Inject, Injectable } from '@nestjs/common';
import { pushedRequestDecider } from '../../domain/pushed-request/pushed-request.decider.js';
import type { PushedRequestContent } from '../../domain/pushed-request/pushed-request.events.js';
import { DomainError } from '../../domain/shared/domain-error.js';
import { streams } from '../../domain/shared/stream-names.js';
import { randomToken, sha256 } from '../../infrastructure/crypto/hashing.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { EVENT_STORE, type EventStore, type RequestOrigin } from '../../infrastructure/event-store/event-store.port.js';
import { expireLater } from '../../infrastructure/event-store/expired-streams.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { InvalidRequestUri, storeError } from '../oauth-errors.js';

/** RFC 9126 §2.2: the URN prefix of every request_uri issued here. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
/** RFC 9126 §2.2: a short lifetime (under 600 s) suffices; the browser is sent on at once. */
export const PUSHED_REQUEST_TTL_SECONDS = 60;
/** How long a pushed request's stream outlives its expiry before the store may delete it (a use then finds it expired, not unknown). */
export const PUSHED_REQUEST_KEPT_AFTER_EXPIRY_SECONDS = 60;

/**
 * Pushed authorization requests (RFC 9126), each on a stream of its own named by its
 * request_uri's SHA-256 (the only trace of the request_uri kept): every server instance on the
 * same log sees it, and its use is appended with the expected revision, so two uses of one
 * request_uri (even at two instances at once) cannot both succeed.
 */
@Injectable()
export class PushedRequests {
  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  async push(tenantId: string, clientId: string, request: PushedRequestContent, origin: RequestOrigin): Promise<{ requestUri: string; expiresIn: number }> {
    const requestUri = `${REQUEST_URI_PREFIX}${randomToken(32)}`;
    const requestUriHash = sha256(requestUri);
    const now = this.clock.now();
    const expiresAt = Math.floor(now.getTime() / 1000) + PUSHED_REQUEST_TTL_SECONDS;
    const stream = streams.pushedRequest(tenantId, streamKey(requestUriHash));
    await this.aggregates
      .execute(stream, pushedRequestDecider, { kind: 'Push', tenantId, clientId, requestUriHash, expiresAt, request }, { tenantId, actor: `client:${clientId}`, now, ...origin })
      .catch(rethrowStoreError);
    expireLater(this.events, stream, (expiresAt + PUSHED_REQUEST_KEPT_AFTER_EXPIRY_SECONDS) * 1000);
    return { requestUri, expiresIn: PUSHED_REQUEST_TTL_SECONDS };
  }

  /** The request pushed under `requestUri` by `clientId`, spent by this call; `invalid_request_uri` for any other (RFC 9101 §6.2). */
  async take(tenantId: string, clientId: string, requestUri: string, origin: RequestOrigin): Promise<PushedRequestContent> {
    if (!requestUri.startsWith(REQUEST_URI_PREFIX)) throw new InvalidRequestUri('request_uri must be one issued by this server\'s pushed authorization request endpoint');
    const requestUriHash = sha256(requestUri);
    const now = this.clock.now();
    try {
      const { state } = await this.aggregates.execute(
        streams.pushedRequest(tenantId, streamKey(requestUriHash)),
        pushedRequestDecider,
        { kind: 'Use', tenantId, clientId, requestUriHash, now: Math.floor(now.getTime() / 1000) },
        { tenantId, actor: `client:${clientId}`, now, ...origin },
      );
      return state.pushed!.request;
    } catch (e) {
      if (e instanceof DomainError) throw new InvalidRequestUri(e.code === 'client_mismatch' ? 'the request_uri was issued to another client' : 'the request_uri is unknown, expired or already used');
      return rethrowStoreError(e);
    }
  }
}

/** The digest without its `sha256:` label, as stream names keep to one separator. */
const streamKey = (requestUriHash: string) => requestUriHash.slice(requestUriHash.indexOf(':') + 1);

function rethrowStoreError(e: unknown): never {
  throw storeError(e) ?? e;
}
