import { EventEmitter } from 'node:events';
import { Pool } from 'undici';
import type { internalLiteral, publicOnlyLookup } from '../shared/address-policy.js';

/** What the receiver answered: its status, or why there was no answer. */
export interface Answer {
  status?: number;
  error?: string;
  /** The start of the body of a 400 (up to MAX_REFUSAL_BYTES): where a receiver says why it refused the message. */
  body?: string;
}

/**
 * For a receiver that may not name an internal address: a DNS lookup that refuses one (the
 * socket connects to the very addresses it checked) and the check of an IP literal, which is
 * connected to without a lookup (src/shared/address-policy.ts).
 */
export interface PublicOnly {
  lookup: typeof publicOnlyLookup;
  internalLiteral: typeof internalLiteral;
}

/** A POST in flight, aborted once its deadline has passed. */
interface Deadline {
  at: number;
  abort: EventEmitter;
}

/**
 * One keep-alive connection pool per receiver origin, as many connections as POSTs may be in
 * flight there: a POST reuses a connection instead of opening one, and costs far less than a
 * `fetch` (no Request, Response and stream objects). A pool's request never follows a redirect.
 *
 * With `publicOnly`, every POST is connected only to an address on the public Internet; an
 * internal one is the error `EINTERNALADDRESS`.
 *
 * The class is also sent as source text to the delivery thread (posting-thread.ts): it names
 * nothing from its module but `Pool` and `EventEmitter`, which the thread defines.
 */
export class ReceiverPools {
  /** How long a receiver's pool is kept with nothing sent to it: its connections are closed after. */
  static readonly IDLE_POOL_MS = 60_000;
  /** undici's codes for an answer that did not come in time. */
  static readonly TIMEOUTS: readonly string[] = ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'];
  /** How much of a 400's body is read; the rest is dropped. */
  static readonly MAX_REFUSAL_BYTES = 4096;

  private readonly pools = new Map<string, { pool: Pool; usedAt: number }>();
  private sweptAt = 0;
  /** The POSTs in flight with the time each must be over by, looked over by one timer (an AbortSignal.timeout each costs more than the POST's own work). */
  private readonly deadlines = new Set<Deadline>();
  private deadlineTimer?: NodeJS.Timeout;

  constructor(
    private readonly connections: number,
    private readonly timeoutMs: number,
    private readonly publicOnly?: PublicOnly,
  ) {}

  /** One POST of `body` to `uri`, its answer's body read and dropped (but the start of a 400's). */
  async post(uri: string, headers: Record<string, string>, body: string, now: number): Promise<Answer> {
    const deadline: Deadline = { at: Date.now() + this.timeoutMs, abort: new EventEmitter() };
    try {
      const url = new URL(uri);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: `unsupported scheme ${url.protocol}` };
      // An IP literal is connected to without a lookup: checked here instead.
      if (this.publicOnly?.internalLiteral(url.hostname)) return { error: 'EINTERNALADDRESS' };
      const pool = this.pool(url.origin, now);
      // The whole exchange within the timeout (the pool's own timeouts bound each phase only).
      this.watch(deadline);
      const response = await pool.request({ method: 'POST', path: `${url.pathname}${url.search}`, headers, body, signal: deadline.abort });
      const refusal = response.statusCode === 400 ? await ReceiverPools.start(response.body, ReceiverPools.MAX_REFUSAL_BYTES) : await response.body.dump().catch(() => undefined);
      if (deadline.at < 0) return { error: 'timeout' };
      return typeof refusal === 'string' ? { status: 400, body: refusal } : { status: response.statusCode };
    } catch (error) {
      return { error: ReceiverPools.describe(error) };
    } finally {
      this.deadlines.delete(deadline);
    }
  }

  /** Closes the pools nothing was sent to for a while (receivers come and go with registrations). */
  sweep(now: number): void {
    // Called at every turn of the sender: the pools are looked over once a second at most.
    if (now - this.sweptAt < 1000) return;
    this.sweptAt = now;
    for (const [origin, p] of this.pools) {
      if (now - p.usedAt < ReceiverPools.IDLE_POOL_MS) continue;
      this.pools.delete(origin);
      void p.pool.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.deadlineTimer);
    this.deadlineTimer = undefined;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.pool.destroy().catch(() => undefined)));
  }

  /** Aborts the POST once its deadline has passed; the timer looks over every POST in flight, and runs only while there are some. */
  private watch(deadline: Deadline): void {
    this.deadlines.add(deadline);
    if (this.deadlineTimer) return;
    const every = Math.max(5, Math.min(100, Math.floor(this.timeoutMs / 20)));
    this.deadlineTimer = setInterval(() => {
      const now = Date.now();
      for (const d of this.deadlines) {
        if (d.at > now) continue;
        this.deadlines.delete(d);
        d.at = -1;
        d.abort.emit('abort');
      }
      if (!this.deadlines.size) {
        clearInterval(this.deadlineTimer);
        this.deadlineTimer = undefined;
      }
    }, every);
    this.deadlineTimer.unref();
  }

  private pool(origin: string, now: number): Pool {
    let p = this.pools.get(origin);
    if (!p) {
      const t = this.timeoutMs;
      const connect = this.publicOnly ? { connect: { lookup: this.publicOnly.lookup as never } } : {};
      p = { pool: new Pool(origin, { connections: this.connections, pipelining: 1, headersTimeout: t, bodyTimeout: t, connectTimeout: t, keepAliveTimeout: 4_000, ...connect }), usedAt: now };
      this.pools.set(origin, p);
    }
    p.usedAt = now;
    return p.pool;
  }

  /** The first `max` bytes of a body as text; the rest is dropped (a body that breaks off gives what came). */
  static async start(body: AsyncIterable<Buffer> & { destroy(): unknown }, max: number): Promise<string> {
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

  /** A short, safe description of why a POST failed (no response at all). */
  static describe(error: unknown): string {
    const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
    if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || (e?.code !== undefined && ReceiverPools.TIMEOUTS.includes(e.code))) return 'timeout';
    const reason = e?.code ?? e?.cause?.code ?? e?.cause?.message ?? e?.message ?? 'request failed';
    return String(reason).slice(0, 200);
  }
}
