import { isIP } from 'node:net';
import { Pool } from 'undici';
import { isPublicAddress, publicOnlyLookup } from '../auth/client-keys/address-policy.js';

/** What the receiver answered: its status, or why there was no answer. */
export interface Answer {
  status?: number;
  error?: string;
  /** The start of the body of a 400 (up to MAX_REFUSAL_BYTES): where a receiver says why it refused the message. */
  body?: string;
}

/** How much of a 400's body is read; the rest is dropped. */
const MAX_REFUSAL_BYTES = 4096;

/** How long a receiver's pool is kept with nothing sent to it: its connections are closed after. */
const IDLE_POOL_MS = 60_000;

/** undici's codes for an answer that did not come in time. */
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * One keep-alive connection pool per receiver origin, as many connections as POSTs may be in
 * flight there: a POST reuses a connection instead of opening one, and costs far less than a
 * `fetch` (no Request, Response and stream objects). A pool's request never follows a redirect.
 */
export class ReceiverPools {
  private readonly pools = new Map<string, { pool: Pool; usedAt: number }>();
  private sweptAt = 0;

  constructor(
    private readonly connections: number,
    private readonly timeoutMs: number,
  ) {}

  /**
   * One POST of `body` to `uri`, its answer's body read and dropped. `publicOnly`: connected
   * only to an address on the public Internet (the lookup checks the very addresses the socket
   * connects to, as for a client's `jwks_uri`); an internal one is the error `EINTERNALADDRESS`.
   */
  async post(uri: string, headers: Record<string, string>, body: string, now: number, publicOnly = false): Promise<Answer> {
    try {
      const url = new URL(uri);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: `unsupported scheme ${url.protocol}` };
      // An IP literal is connected to without a lookup: checked here instead.
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (publicOnly && isIP(host) !== 0 && !isPublicAddress(host)) return { error: 'EINTERNALADDRESS' };
      const pool = this.pool(url.origin, now, publicOnly);
      // The whole exchange within the timeout (the pool's own timeouts bound each phase only).
      const response = await pool.request({ method: 'POST', path: `${url.pathname}${url.search}`, headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
      if (response.statusCode === 400) return { status: 400, body: await start(response.body, MAX_REFUSAL_BYTES) };
      await response.body.dump().catch(() => undefined);
      return { status: response.statusCode };
    } catch (error) {
      return { error: describe(error) };
    }
  }

  /** Closes the pools nothing was sent to for a while (receivers come and go with registrations). */
  sweep(now: number): void {
    // Called at every turn of the sender: the pools are looked over once a second at most.
    if (now - this.sweptAt < 1000) return;
    this.sweptAt = now;
    for (const [origin, p] of this.pools) {
      if (now - p.usedAt < IDLE_POOL_MS) continue;
      this.pools.delete(origin);
      void p.pool.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.pool.destroy().catch(() => undefined)));
  }

  private pool(origin: string, now: number, publicOnly: boolean): Pool {
    const key = publicOnly ? `public ${origin}` : origin;
    let p = this.pools.get(key);
    if (!p) {
      const t = this.timeoutMs;
      const connect = publicOnly ? { connect: { lookup: publicOnlyLookup as never } } : {};
      p = { pool: new Pool(origin, { connections: this.connections, pipelining: 1, headersTimeout: t, bodyTimeout: t, connectTimeout: t, keepAliveTimeout: 4_000, ...connect }), usedAt: now };
      this.pools.set(key, p);
    }
    p.usedAt = now;
    return p.pool;
  }
}

/** A short, safe description of why a POST failed (no response at all). */
function describe(error: unknown): string {
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || (e?.code !== undefined && TIMEOUTS.has(e.code))) return 'timeout';
  const reason = e?.code ?? e?.cause?.code ?? e?.cause?.message ?? e?.message ?? 'request failed';
  return String(reason).slice(0, 200);
}

/** The first `max` bytes of a body as text; the rest is dropped (a body that breaks off gives what came). */
async function start(body: AsyncIterable<Buffer> & { destroy(): unknown }, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= max) break;
    }
  } catch {
    // What came before the break is still the receiver's answer.
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}
