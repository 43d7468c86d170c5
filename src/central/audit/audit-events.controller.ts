import { Controller, Get, Inject, Logger, Param, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { EVENT_STORE, type EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { AdminGuard, RequireScope } from '../auth/admin.guard.js';
import { adminValidation } from '../http/validation.js';
import { eventQuery } from './audit-query.js';
import { auditEvent, MAX_SCAN, type ScanBatch, scanEvents } from './event-scan.js';

export const NDJSON = 'application/x-ndjson';

/** Whether the Accept header asks for newline-delimited JSON (named, with a q other than 0). */
export function wantsNdjson(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((range) => {
    const [type, ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    return type === NDJSON && !params.some((p) => /^q=0(\.0*)?$/.test(p));
  });
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`;

/**
 * `{issuer}/configuration/audit/events`: the tenant's events in log order, as recorded. A JSON
 * page reads at most MAX_SCAN events of the log, so its `next` may come with fewer items than
 * asked for; `Accept: application/x-ndjson` streams the whole range instead (to the log's end as
 * the request found it, or `limit`), one event per line, a batch read only once the previous one
 * has been written, and ends with the cursor line `{"next": <position>}`.
 */
@Controller(':tenant/configuration/audit/events')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class AuditEventsController {
  private readonly log = new Logger('Audit');

  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  @Get()
  @RequireScope('central:audit')
  async list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const streamed = wantsNdjson(req.headers.accept);
    const q = eventQuery(req.query, streamed);
    reply.header('cache-control', 'no-store');
    if (!streamed) {
      const items: unknown[] = [];
      let last: ScanBatch | undefined;
      for await (const batch of scanEvents(this.events, tenantId, q, { maxScan: MAX_SCAN })) {
        items.push(...batch.matches.map(auditEvent));
        last = batch;
      }
      return last && !last.end ? { items, next: String(last.next) } : { items };
    }
    const scan = scanEvents(this.events, tenantId, q, { head: await this.events.headPosition() });
    // The first batch is read before the answer starts, so that a store that cannot be read
    // still gets a problem document and its status.
    const first = await scan.next();
    reply.header('content-type', `${NDJSON}; charset=utf-8`);
    return Readable.from(this.lines(first.done ? undefined : first.value, scan), { objectMode: false });
  }

  /** One chunk per batch; a failure past the first batch can only end the stream early, with an error line and no cursor line. */
  private async *lines(first: ScanBatch | undefined, rest: AsyncGenerator<ScanBatch>): AsyncGenerator<string> {
    let next: number | undefined;
    try {
      for (let batch = first; batch; batch = (await rest.next()).value || undefined) {
        if (batch.matches.length) yield batch.matches.map((e) => line(auditEvent(e))).join('');
        next = batch.next;
      }
    } catch (e) {
      this.log.error(`audit stream cut short: ${(e as Error).message}`);
      yield line({ error: 'the server could not read further; resume after the last event received' });
      return;
    }
    yield line({ next: String(next ?? 0) });
  }
}
