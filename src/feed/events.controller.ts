import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequest } from '../auth/oauth-errors.js';
import { EventFeed } from './event-feed.js';
import { FeedAccess } from './feed-access.js';
import type { IntegrationEvent } from './integration-events.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
/** The longest long poll, in seconds: below the usual idle timeouts of proxies. */
const MAX_WAIT = 30;
/** A comment line this often keeps an idle stream open through proxies. */
const KEEPALIVE_MS = 15_000;
const CURSOR = /^\d{1,15}$/;

function cursorOf(raw: unknown, name: string): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !CURSOR.test(raw)) throw new InvalidRequest(`${name} must be a cursor the feed gave`);
  return Number(raw);
}

function whole(raw: unknown, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d{1,6}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new InvalidRequest(`${name} must be a whole number from ${min} to ${max}`);
  return Number(raw);
}

/** One event as a Server-Sent Event: its cursor as the `id` (what `Last-Event-ID` brings back), the CloudEvent as `data`. */
const sse = (e: IntegrationEvent) => `id: ${e.cursor}\ndata: ${JSON.stringify(e)}\n\n`;

/**
 * `{issuer}/events`: the tenant's integration events in log order. `Accept: text/event-stream`
 * streams them; otherwise a JSON page after a cursor, waiting up to `wait` seconds for one
 * when none is there yet.
 */
@Controller(':tenant/events')
export class EventsController {
  constructor(
    @Inject(EventFeed) private readonly feed: EventFeed,
    @Inject(FeedAccess) private readonly access: FeedAccess,
  ) {}

  @Get()
  async events(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.access.check(req, tenantId);
    const { after, limit, wait, ...rest } = (req.query ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined) throw new InvalidRequest(`unknown query parameter ${unknown}`);
    const from = cursorOf(after, 'after');
    if (/\btext\/event-stream\b/i.test(req.headers.accept ?? '')) {
      if (limit !== undefined || wait !== undefined) throw new InvalidRequest('limit and wait apply to JSON pages, not to a stream');
      const lastEventId = cursorOf(req.headers['last-event-id'], 'Last-Event-ID');
      return this.stream(tenantId, lastEventId ?? from ?? (await this.feed.head()), req, reply);
    }
    const size = whole(limit, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT);
    const seconds = whole(wait, 'wait', 0, 0, MAX_WAIT);
    // The response's close (not the request's, which comes once its body is read): the client went.
    const closed = new AbortController();
    reply.raw.once('close', () => closed.abort());
    const page = await this.feed.pageOrWait(tenantId, from ?? 0, size, seconds * 1000, AbortSignal.any([closed.signal, this.feed.closing]));
    reply.header('cache-control', 'no-store').header('content-type', 'application/json; charset=utf-8').send({ events: page.events, next: String(page.next) });
  }

  /** Reads the log from the cursor, then waits for the tenant's next events, until the client goes. */
  private async stream(tenantId: string, from: number, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      'x-request-id': String(req.id),
      'x-content-type-options': 'nosniff',
    });
    const client = new AbortController();
    raw.once('close', () => client.abort());
    // The client's going, or the server's.
    const gone = { signal: AbortSignal.any([client.signal, this.feed.closing]) };
    // EventSource reconnects after this many milliseconds, with the last id it saw.
    raw.write('retry: 1000\n\n');
    let cursor = from;
    try {
      while (!gone.signal.aborted) {
        const page = await this.feed.pageOrWait(tenantId, cursor, DEFAULT_LIMIT, KEEPALIVE_MS, gone.signal);
        if (gone.signal.aborted) break;
        if (page.events.length) raw.write(page.events.map(sse).join(''));
        else raw.write(': keepalive\n\n');
        cursor = page.next;
      }
    } catch {
      // The store closed (shutdown) or the write failed (client gone): the client resumes with its last id.
    } finally {
      raw.end();
    }
  }
}
