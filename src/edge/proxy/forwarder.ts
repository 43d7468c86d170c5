import { EventEmitter } from 'node:events';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientResponseHeaders, type Forwarding, upstreamRequestHeaders } from './forward-headers.js';
import { ProxyMetrics } from './proxy-metrics.js';
import { Upstreams } from './upstreams.js';

/** undici's codes for an upstream that did not answer in time. */
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export interface Exchange {
  origin: string;
  /** The checked path, encoded, with the query. */
  path: string;
  forwarding: Forwarding;
}

/**
 * Sends an admitted request on to its upstream and the answer back, both bodies streamed as
 * they come (the request's raw stream goes to undici; the answer's stream to Fastify), with the
 * upstream's status and end-to-end headers. An upstream that cannot be reached is 502, one that
 * does not answer in time 504, one with too many requests waiting 503; once the answer has
 * started, a failure can only cut it short.
 */
@Injectable()
export class Forwarder {
  private readonly logger = new Logger('Proxy');

  constructor(
    @Inject(Upstreams) private readonly upstreams: Upstreams,
    @Inject(ProxyMetrics) private readonly metrics: ProxyMetrics,
  ) {}

  async forward(req: FastifyRequest, reply: FastifyReply, x: Exchange): Promise<void> {
    const slot = this.upstreams.take(x.origin);
    if (!slot) {
      this.metrics.count(this.metrics.failed, 'busy');
      return fail(reply.header('retry-after', '1'), 503, 'temporarily_unavailable', 'the resource has too many requests under way; retry shortly');
    }
    const cancel = new Cancel();
    let answer: { destroy(): void } | undefined;
    // One listener for the whole exchange: a client gone before the answer ends the upstream's
    // exchange too; once the answer has started, its slot is let go (a body nobody reads to its
    // end, as an answer to HEAD, must not hold it) and an unfinished body is dropped.
    reply.raw.once('close', () => {
      if (!answer) {
        if (!reply.raw.writableFinished) cancel.abort();
        return;
      }
      slot.release();
      if (!reply.raw.writableFinished) answer.destroy();
    });
    const headers = req.headers;
    const hasBody = headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
    try {
      const res = await slot.pool.request({
        method: req.method as 'GET',
        path: x.path,
        headers: upstreamRequestHeaders(headers, x.forwarding),
        body: hasBody ? req.raw : null,
        signal: cancel,
      });
      res.body.once('close', slot.release);
      res.body.once('error', (e: Error) => {
        // After the status line nothing else can be said: the answer is cut short, and logged.
        this.logger.warn(`the upstream ${x.origin} failed while answering: ${e.message}`);
      });
      answer = res.body;
      if (reply.raw.destroyed) {
        // The client left while the upstream's status line was on its way.
        slot.release();
        res.body.destroy();
        return;
      }
      reply.status(res.statusCode).headers(clientResponseHeaders(res.headers));
      await reply.send(res.body);
    } catch (e) {
      slot.release();
      if (cancel.aborted || reply.raw.destroyed) return;
      const code = (e as { code?: string }).code ?? '';
      if (TIMEOUTS.has(code)) {
        this.metrics.count(this.metrics.failed, 'timeout');
        return fail(reply, 504, 'upstream_timeout', 'the resource did not answer in time');
      }
      this.metrics.count(this.metrics.failed, 'unavailable');
      this.logger.warn(`the upstream ${x.origin} could not be reached: ${code || (e instanceof Error ? e.message : String(e))}`);
      return fail(reply, 502, 'upstream_unavailable', 'the resource cannot be reached');
    }
  }
}

/** A request's cancellation as undici takes it (an emitter of `abort`): lighter than an AbortController, made for every request. */
class Cancel extends EventEmitter {
  aborted = false;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}

function fail(reply: FastifyReply, status: number, error: string, description: string): void {
  if (reply.sent) return;
  reply.status(status).header('cache-control', 'no-store').header('content-type', 'application/json; charset=utf-8').send(JSON.stringify({ error, error_description: description }));
}
