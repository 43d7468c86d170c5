import { createHash } from 'node:crypto';

/**
 * How many partitions the deliveries are spread over when several servers share them: each
 * server sends the deliveries of the partitions it holds a lease on. Fixed, since every
 * stored delivery records its partition; it bounds how many servers can share the work.
 */
export const DELIVERY_PARTITIONS = 32;

const byUri = new Map<string, number>();

/**
 * A delivery's partition, from its receiver's origin (scheme, host and port): every delivery
 * to one receiver is sent by one server, so that the per-receiver concurrency bound holds
 * across servers as it does within one.
 */
export function partitionOf(uri: string): number {
  let p = byUri.get(uri);
  if (p === undefined) {
    const origin = URL.canParse(uri) ? new URL(uri).origin : uri;
    p = createHash('sha256').update(origin).digest().readUInt32BE(0) % DELIVERY_PARTITIONS;
    // Receivers come and go with registrations: the memo is bounded, not a leak.
    if (byUri.size >= 10_000) byUri.clear();
    byUri.set(uri, p);
  }
  return p;
}
