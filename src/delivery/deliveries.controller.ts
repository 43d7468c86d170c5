import { Controller, Get, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AdminGuard, RequireScope } from '../central/auth/admin.guard.js';
import { pageOf, pageQuery } from '../central/http/paging.js';
import { problems } from '../central/http/problem.js';
import { DeliveryKinds } from './delivery-kind.js';
import { DeliverySender } from './delivery-sender.js';
import { type Delivery, DeliveryStore } from './delivery-store.js';

/** A delivery as the admin API shows it: its kind's fields, never a token or a secret (none is kept). */
function representation(kinds: DeliveryKinds, d: Delivery): Record<string, unknown> {
  return {
    id: d.deliveryId,
    kind: d.kind,
    status: d.status,
    ...(kinds.get(d.kind)?.represent(d) ?? {}),
    cause: d.cause,
    attempts: d.attempts,
    ...(d.lastStatus !== undefined ? { last_status: d.lastStatus } : {}),
    ...(d.lastError !== undefined ? { last_error: d.lastError } : {}),
    ...(d.firstAttemptAt !== undefined ? { first_attempt_at: new Date(d.firstAttemptAt).toISOString() } : {}),
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

/** `{issuer}/configuration/deliveries`: deliveries of every kind whose retries ran out (or that their receiver refused for good), and their redelivery. */
@Controller(':tenant/configuration/deliveries')
@UseGuards(AdminGuard)
export class DeliveriesController {
  constructor(
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(DeliverySender) private readonly sender: DeliverySender,
    @Inject(DeliveryKinds) private readonly kinds: DeliveryKinds,
  ) {}

  @Get('dead-letters')
  @RequireScope('central:read')
  async deadLetters(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    const { limit, after } = pageQuery(req.query, ['kind']);
    const kind = (req.query as { kind?: unknown }).kind;
    if (kind !== undefined && (typeof kind !== 'string' || !this.kinds.get(kind))) {
      throw problems.badRequest(`kind must be one of ${this.kinds.names.join(', ')}`, [{ path: 'kind', detail: `one of ${this.kinds.names.join(', ')}` }]);
    }
    const docs = await this.store.deadLetters(tenantId, limit + 1, after, kind !== undefined ? { kind } : {});
    return pageOf(docs, limit, (d) => d.deliveryId, (d) => representation(this.kinds, d));
  }

  @Get('dead-letters/:id')
  @RequireScope('central:read')
  async deadLetter(@Param('tenant') tenantId: string, @Param('id') id: string): Promise<unknown> {
    const d = await this.store.get(tenantId, id);
    if (!d || d.status !== 'dead') throw problems.notFound('no such dead letter');
    return representation(this.kinds, d);
  }

  /** The delivery starts over at once, with a fresh retry window; its outcome is in the log like any other. */
  @Post('dead-letters/:id/redeliver')
  @HttpCode(202)
  @RequireScope('central:write')
  async redeliver(@Param('tenant') tenantId: string, @Param('id') id: string): Promise<unknown> {
    const d = await this.store.get(tenantId, id);
    if (!d || d.status !== 'dead') throw problems.notFound('no such dead letter');
    return representation(this.kinds, await this.sender.redeliver(d));
  }
}
