import { Controller, Get, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AdminGuard, RequireScope } from '../central/auth/admin.guard.js';
import { pageOf, pageQuery } from '../central/http/paging.js';
import { problems } from '../central/http/problem.js';
import { BackchannelSender } from './backchannel-sender.js';
import { type Delivery, DeliveryStore } from './delivery-store.js';

/** A delivery as the admin API shows it: never a token (none is kept). */
function representation(d: Delivery): Record<string, unknown> {
  return {
    id: d.deliveryId,
    status: d.status,
    client_id: d.clientId,
    sid: d.sessionId,
    sub: d.userId,
    backchannel_logout_uri: d.uri,
    cause: d.cause,
    attempts: d.attempts,
    ...(d.lastStatus !== undefined ? { last_status: d.lastStatus } : {}),
    ...(d.lastError !== undefined ? { last_error: d.lastError } : {}),
    ...(d.firstAttemptAt !== undefined ? { first_attempt_at: new Date(d.firstAttemptAt).toISOString() } : {}),
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

/** `{issuer}/configuration/deliveries`: back-channel logout deliveries whose retries ran out, and their redelivery. */
@Controller(':tenant/configuration/deliveries')
@UseGuards(AdminGuard)
export class DeliveriesController {
  constructor(
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(BackchannelSender) private readonly sender: BackchannelSender,
  ) {}

  @Get('dead-letters')
  @RequireScope('central:read')
  async deadLetters(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    const { limit, after } = pageQuery(req.query, []);
    const docs = await this.store.deadLetters(tenantId, limit + 1, after);
    return pageOf(docs, limit, (d) => d.deliveryId, representation);
  }

  @Get('dead-letters/:id')
  @RequireScope('central:read')
  async deadLetter(@Param('tenant') tenantId: string, @Param('id') id: string): Promise<unknown> {
    const d = await this.store.get(tenantId, id);
    if (!d || d.status !== 'dead') throw problems.notFound('no such dead letter');
    return representation(d);
  }

  /** The delivery starts over at once, with a fresh retry window; its outcome is in the log like any other. */
  @Post('dead-letters/:id/redeliver')
  @HttpCode(202)
  @RequireScope('central:write')
  async redeliver(@Param('tenant') tenantId: string, @Param('id') id: string): Promise<unknown> {
    const d = await this.store.get(tenantId, id);
    if (!d || d.status !== 'dead') throw problems.notFound('no such dead letter');
    return representation(await this.sender.redeliver(d));
  }
}
