import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'undici';
import { PROXY_SETTINGS, type ProxySettings } from './proxy-settings.js';

interface Upstream {
  pool: Pool;
  /** Requests under way or waiting for a connection. */
  busy: number;
}

/**
 * One keep-alive pool per upstream origin, with at most `connections` requests under way there
 * and `queue` waiting; a request beyond that is not taken (the caller answers 503) rather than
 * queued without bound.
 */
@Injectable()
export class Upstreams implements OnApplicationShutdown {
  private readonly upstreams = new Map<string, Upstream>();

  constructor(@Inject(PROXY_SETTINGS) private readonly settings: ProxySettings) {}

  /** The pool of `origin` and a release to call once the exchange is over; undefined when the upstream is full. */
  take(origin: string): { pool: Pool; release: () => void } | undefined {
    let u = this.upstreams.get(origin);
    if (!u) {
      const { timeoutMs, connections } = this.settings;
      u = {
        pool: new Pool(origin, { connections, pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: Math.min(timeoutMs, 10_000), keepAliveTimeout: 4_000 }),
        busy: 0,
      };
      this.upstreams.set(origin, u);
    }
    if (u.busy >= this.settings.connections + this.settings.queue) return undefined;
    u.busy++;
    const held = u;
    let released = false;
    return {
      pool: u.pool,
      release: () => {
        if (!released) {
          released = true;
          held.busy--;
        }
      },
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.upstreams.values()].map((u) => u.pool.destroy().catch(() => undefined)));
    this.upstreams.clear();
  }
}
