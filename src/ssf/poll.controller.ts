import { Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InvalidRequest } from '../auth/oauth-errors.js';
import { ssfStreamKey } from '../../projections/ssf-streams.projection.js';
import { AggregateStore } from '../infrastructure/event-store/aggregate-store.js';
import { factDecider } from '../domain/shared/decider.js';
import { streams } from '../domain/shared/stream-names.js';
import type { SsfSetsAcknowledged } from '../domain/ssf/ssf-stream.events.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { originOf } from '../shared/request-origin.js';
import { SsfAccess } from './ssf-access.js';
import { SsfFollower } from './ssf-follower.js';
import { SsfStreams } from './ssf-streams.js';
import { SetStore } from './set-store.js';
import { objectBody, streamIdOf } from './stream-requests.js';

const DEFAULT_MAX_EVENTS = 100;
const MAX_EVENTS = 1000;
/** The longest long poll, in seconds: below the usual idle timeouts of proxies. */
export const MAX_POLL_WAIT_MS = 30_000;
const MAX_ACKS = 1000;
const JTI = /^[A-Za-z0-9_-]{1,64}$/;

type AckCommand = { tenantId: string; streamId: string; acked: string[]; errors: SsfSetsAcknowledged['data']['errors'] };
const ackDecider = factDecider<AckCommand, SsfSetsAcknowledged>((c) => (c.acked.length || c.errors.length ? [{ type: 'SsfSetsAcknowledged', data: c }] : []));

interface PollRequest {
  ack: string[];
  errors: AckCommand['errors'];
  maxEvents: number;
  returnImmediately: boolean;
}

function jtis(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || value.length > MAX_ACKS || value.some((j) => typeof j !== 'string' || !JTI.test(j))) throw new InvalidRequest(`${name} must be an array of at most ${MAX_ACKS} jti values`);
  return value as string[];
}

/** RFC 8936 §2.4: the members of a poll request, checked. */
function pollRequest(raw: unknown): PollRequest {
  const body = objectBody(raw ?? {});
  const extra = Object.keys(body).find((k) => !['ack', 'setErrs', 'maxEvents', 'returnImmediately'].includes(k));
  if (extra !== undefined) throw new InvalidRequest(`unknown member ${extra}`);
  const ack = body.ack === undefined ? [] : jtis(body.ack, 'ack');
  const errors: AckCommand['errors'] = [];
  if (body.setErrs !== undefined) {
    const errs = objectBody(body.setErrs);
    jtis(Object.keys(errs), 'setErrs');
    for (const [jti, v] of Object.entries(errs)) {
      const e = objectBody(v);
      if (typeof e.err !== 'string' || e.err.length > 64 || (e.description !== undefined && (typeof e.description !== 'string' || e.description.length > 1000))) {
        throw new InvalidRequest('each setErrs member must have err (a string) and may have description');
      }
      errors.push({ jti, err: e.err, ...(e.description !== undefined ? { description: e.description as string } : {}) });
    }
  }
  if (body.maxEvents !== undefined && (!Number.isInteger(body.maxEvents) || (body.maxEvents as number) < 0 || (body.maxEvents as number) > MAX_EVENTS)) throw new InvalidRequest(`maxEvents must be a whole number from 0 to ${MAX_EVENTS}`);
  if (body.returnImmediately !== undefined && typeof body.returnImmediately !== 'boolean') throw new InvalidRequest('returnImmediately must be a boolean');
  return { ack, errors, maxEvents: (body.maxEvents as number | undefined) ?? DEFAULT_MAX_EVENTS, returnImmediately: body.returnImmediately === true };
}

/**
 * RFC 8936 poll delivery: `{issuer}/ssf/poll/{stream_id}`, for the stream's own receiver. SETs
 * stay until acknowledged (or reported in `setErrs`): one not acknowledged comes again in the
 * next answer. Without `returnImmediately`, an empty answer waits (bounded) for the next SET.
 */
@Controller(':tenant/ssf/poll')
export class PollController {
  constructor(
    @Inject(SsfAccess) private readonly access: SsfAccess,
    @Inject(SsfStreams) private readonly streams: SsfStreams,
    @Inject(SetStore) private readonly sets: SetStore,
    @Inject(SsfFollower) private readonly follower: SsfFollower,
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  @Post(':streamId')
  async poll(@Param('tenant') tenantId: string, @Param('streamId') rawId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const clientId = await this.access.receiver(req, tenantId);
    const r = { tenantId, clientId, origin: originOf(req) };
    const stream = await this.streams.require(r, streamIdOf(rawId));
    const p = pollRequest(req.body);
    const taken = [...p.ack, ...p.errors.map((e) => e.jti)];
    if (taken.length) {
      // The receiver's answer is recorded before the SETs go: a crash between leaves them to be polled again, never lost.
      const found = await this.sets.held(tenantId, stream.streamId, taken);
      const held = new Set(found.map((s) => s.jti));
      const command = { tenantId, streamId: stream.streamId, acked: p.ack.filter((j) => held.has(j)), errors: p.errors.filter((e) => held.has(e.jti)) };
      await this.aggregates.execute(streams.ssfAcks(tenantId, stream.streamId), ackDecider, command, { tenantId, actor: `client:${clientId}`, now: this.clock.now(), ...r.origin });
      await this.sets.remove(found);
    }
    const closed = new AbortController();
    reply.raw.once('close', () => closed.abort());
    const page = await this.page(tenantId, stream.streamId, stream.status, p, AbortSignal.any([closed.signal, this.follower.closing]));
    reply.status(200).header('cache-control', 'no-store').header('content-type', 'application/json; charset=utf-8').send(page);
  }

  /** Up to maxEvents SETs; with none and no returnImmediately, waits for the follower to store one, up to the bound. */
  private async page(tenantId: string, streamId: string, status: string, p: PollRequest, gone: AbortSignal): Promise<{ sets: Record<string, string>; moreAvailable: boolean }> {
    // SSF 1.0 §8.1.2: a paused stream holds its SETs; a disabled one has none.
    const read = async () => {
      if (status !== 'enabled' || p.maxEvents === 0) return { sets: {}, moreAvailable: false };
      const pending = await this.sets.pending(tenantId, streamId, p.maxEvents + 1);
      return { sets: Object.fromEntries(pending.slice(0, p.maxEvents).map((s) => [s.jti, s.set])), moreAvailable: pending.length > p.maxEvents };
    };
    if (p.returnImmediately || p.maxEvents === 0 || status !== 'enabled') return read();
    const key = ssfStreamKey(tenantId, streamId);
    let wake: (() => void) | undefined;
    let arrived = false;
    const onArrival = () => {
      arrived = true;
      wake?.();
    };
    let expired = false;
    const expire = () => {
      expired = true;
      wake?.();
    };
    // Listening before the first read: a SET stored between the read and the wait is not missed.
    this.follower.arrivals.on(key, onArrival);
    const timer = setTimeout(expire, MAX_POLL_WAIT_MS);
    gone.addEventListener('abort', expire, { once: true });
    try {
      let page = await read();
      while (!Object.keys(page.sets).length && !expired) {
        if (!arrived) await this.nap((resolve) => (wake = resolve));
        arrived = false;
        page = await read();
      }
      return page;
    } finally {
      clearTimeout(timer);
      this.follower.arrivals.off(key, onArrival);
      gone.removeEventListener('abort', expire);
    }
  }

  /** Until woken or, with several servers (another's follower may store the SETs, unheard here), until the next recheck. */
  private async nap(waitFor: (resolve: () => void) => void): Promise<void> {
    let recheck: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      waitFor(resolve);
      if (this.follower.recheckMs !== undefined) recheck = setTimeout(resolve, this.follower.recheckMs);
    });
    clearTimeout(recheck);
  }
}
