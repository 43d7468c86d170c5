import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { ClientView } from '../../../projections/clients.projection.js';
import { type Config, CONFIG } from '../../config.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { setBounded } from '../../shared/bounded-map.js';
import { JwksFetcher, JwksUnavailable } from './jwks-fetcher.js';

/** A fetched document is kept at least this long, whatever its Cache-Control says, so that no client makes us fetch on every request. */
export const MIN_CACHE_SECONDS = 60;
/** ... and at most this long, so that a key the client withdrew stops verifying within a day. */
export const MAX_CACHE_SECONDS = 86_400;
/** Kept this long when the document's server says nothing. */
export const DEFAULT_CACHE_SECONDS = 600;
/** After a fetch (or a failed one), an unknown `kid` fetches again only this much later: a stranger cannot make us hammer the URI. */
export const REFETCH_COOLDOWN_SECONDS = 30;
const DOCUMENTS_KEPT = 1000;

type KeySet = ReturnType<typeof createLocalJWKSet>;

interface Cached {
  /** The keys, or why there are none (the failure is kept as long as the cooldown). */
  set: KeySet | JwksUnavailable;
  fetchedAt: number;
  expiresAt: number;
}

/**
 * The public keys a client signs with (its assertions, RFC 7523; its request objects, RFC
 * 9101): its registered `jwks`, or the JWK Set at its `jwks_uri` (RFC 7591 §2), fetched
 * (JwksFetcher), cached per URI by the injected clock, and fetched again once when a `kid`
 * is not found in it.
 */
@Injectable()
export class ClientKeys implements OnModuleDestroy {
  private readonly local = new WeakMap<object, KeySet>();
  private readonly remote = new Map<string, Cached>();
  private readonly inFlight = new Map<string, Promise<Cached>>();
  private readonly fetcher: JwksFetcher;

  constructor(
    @Inject(Clock) private readonly clock: Clock,
    @Inject(CONFIG) config: Config,
  ) {
    this.fetcher = new JwksFetcher(config.jwksUri);
  }

  async onModuleDestroy(): Promise<void> {
    await this.fetcher.close();
  }

  /**
   * A key resolver for `jose`'s jwtVerify, or undefined when the client registered no keys. It
   * throws JwksUnavailable when the client's jwks_uri cannot give its keys.
   */
  of(client: Pick<ClientView, 'jwks' | 'jwksUri'>): JWTVerifyGetKey | undefined {
    if (client.jwks) {
      let set = this.local.get(client.jwks);
      if (!set) {
        set = createLocalJWKSet(client.jwks as unknown as JSONWebKeySet);
        this.local.set(client.jwks, set);
      }
      return set;
    }
    const uri = client.jwksUri;
    if (!uri) return undefined;
    return async (header, token) => {
      let cached = await this.document(uri, false);
      try {
        return await usable(cached)(header, token);
      } catch (e) {
        if (!(e instanceof errors.JWKSNoMatchingKey)) throw e;
        // A kid not seen yet may be the client's next key (rotation): fetch again, within the cooldown.
        if (this.clock.seconds() - cached.fetchedAt < REFETCH_COOLDOWN_SECONDS) throw e;
        cached = await this.document(uri, true);
        return usable(cached)(header, token);
      }
    };
  }

  private async document(uri: string, refresh: boolean): Promise<Cached> {
    const now = this.clock.seconds();
    const cached = this.remote.get(uri);
    if (cached && !refresh && now < cached.expiresAt) return cached;
    let pending = this.inFlight.get(uri);
    if (!pending) {
      pending = this.fetch(uri).finally(() => this.inFlight.delete(uri));
      this.inFlight.set(uri, pending);
    }
    return pending;
  }

  private async fetch(uri: string): Promise<Cached> {
    const fetchedAt = this.clock.seconds();
    let entry: Cached;
    try {
      // Every client is registered by an administrator here (bootstrap file, admin API; there is
      // no RFC 7591 dynamic registration endpoint), who may name a host on an internal network.
      const fetched = await this.fetcher.fetch(uri, true);
      const ttl = Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, fetched.maxAgeSeconds ?? DEFAULT_CACHE_SECONDS));
      entry = { set: createLocalJWKSet({ keys: fetched.keys } as unknown as JSONWebKeySet), fetchedAt, expiresAt: fetchedAt + ttl };
    } catch (e) {
      entry = { set: e instanceof JwksUnavailable ? e : new JwksUnavailable('the client\'s jwks_uri could not be fetched'), fetchedAt, expiresAt: fetchedAt + REFETCH_COOLDOWN_SECONDS };
    }
    setBounded(this.remote, uri, entry, DOCUMENTS_KEPT);
    return entry;
  }
}

function usable(cached: Cached): KeySet {
  if (cached.set instanceof JwksUnavailable) throw cached.set;
  return cached.set;
}
