import { Injectable } from '@nestjs/common';

/** Counts of the proxy's answers, in this process (allowed requests are counted, not each recorded as an event). */
@Injectable()
export class ProxyMetrics {
  /** Forwarded requests by `<tenant>/<resource>`. */
  readonly forwarded = new Map<string, number>();
  /** Refusals (400, 401, 403) by `<tenant>/<resource>`; each is also an event. */
  readonly denied = new Map<string, number>();
  /** Upstream failures by kind: `unavailable` (502), `timeout` (504), `busy` (503). */
  readonly failed = new Map<string, number>();

  count(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  /** The counts as plain objects (for a metrics endpoint, a log line, or a test). */
  snapshot(): { forwarded: Record<string, number>; denied: Record<string, number>; failed: Record<string, number> } {
    return { forwarded: Object.fromEntries(this.forwarded), denied: Object.fromEntries(this.denied), failed: Object.fromEntries(this.failed) };
  }
}
