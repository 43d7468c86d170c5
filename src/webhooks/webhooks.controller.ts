import { Body, Controller, HttpCode, Inject, Param, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { webhookKey, type WebhookSubscriptionView } from '../../projections/webhook-subscriptions.projection.js';
import type { AdminPrincipal } from '../central/auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../central/auth/admin.guard.js';
import { ifMatchRevision } from '../central/http/etag.js';
import { commandOrigin } from '../central/http/item-origin.js';
import { ItemRoutes, type ItemRoutesKind } from '../central/http/item-routes.js';
import { adminValidation, validated } from '../central/http/validation.js';
import { Clock } from '../infrastructure/nest/clock.js';
import { READ_STORE, type ReadStore } from '../infrastructure/read-store/read-store.port.js';
import { Directory } from '../shared/directory.js';
import { CreateWebhook, RotateWebhookSecret, UpdateWebhook, WebhookAction } from './webhook-commands.js';
import { DEFAULT_SECRET_GRACE_SECONDS, WEBHOOK_READ_ONLY, webhookDefinitionOf, WebhookDto, WebhookReplayDto, webhookRepresentation, WebhookSecretRotationDto } from './webhook.dto.js';

const WEBHOOKS: ItemRoutesKind<WebhookSubscriptionView, WebhookDto> = {
  view: 'webhook_subscriptions',
  path: 'webhooks',
  noun: 'webhook',
  key: webhookKey,
  idOf: (s) => s.subscriptionId,
  render: webhookRepresentation,
  readOnly: WEBHOOK_READ_ONLY,
  dto: WebhookDto,
  idOfDto: (dto) => dto.id!,
  // Creation is this controller's own (it answers the secret); the shared routes only patch.
  save: (by, dto) => new UpdateWebhook(by, webhookDefinitionOf(dto, dto.id!)),
  remove: (by, id) => new WebhookAction(by, id, { kind: 'DeleteWebhook' }),
};

/**
 * `{issuer}/configuration/webhooks`: the tenant's webhook subscriptions (Standard Webhooks).
 * The secret is generated here and shown once, at creation and at each rotation; the server
 * keeps it sealed. A subscription paused by the server (its deliveries kept failing) says so
 * in `status` and `paused_reason` until an administrator resumes it.
 */
@Controller(':tenant/configuration/webhooks')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class WebhooksController extends ItemRoutes<WebhookSubscriptionView, WebhookDto> {
  constructor(
    @Inject(CommandBus) private readonly bus: CommandBus,
    @Inject(READ_STORE) reads: ReadStore,
    @Inject(Directory) directory: Directory,
    @Inject(Clock) private readonly clock: Clock,
  ) {
    super(bus, reads, directory, WEBHOOKS);
  }

  /** 201 with the subscription and, this once, its `secret`. */
  @Post()
  @RequireScope('central:write')
  override async create(@Param('tenant') tenantId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const dto = validated(WebhookDto, req.body);
    const id = dto.id ?? randomUUID();
    const secret = await this.bus.execute(new CreateWebhook(commandOrigin(tenantId, p, req), webhookDefinitionOf(dto, id)));
    const shown = await this.items.created(reply, tenantId, id);
    reply.header('cache-control', 'no-store');
    return { ...shown, secret };
  }

  /** A new secret, shown once; the previous one signs beside it for `grace_period` seconds (default a day), then stops. */
  @Post(':id/secret')
  @RequireScope('central:write')
  @HttpCode(200)
  async rotateSecret(
    @Param('tenant') tenantId: string,
    @Param('id') id: string,
    @Body() dto: WebhookSecretRotationDto,
    @Principal() p: AdminPrincipal,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    await this.items.found(tenantId, id);
    const previousValidUntil = this.clock.seconds() + (dto?.grace_period ?? DEFAULT_SECRET_GRACE_SECONDS);
    const secret = await this.bus.execute(new RotateWebhookSecret(commandOrigin(tenantId, p, req, expectedRevision), id, previousValidUntil));
    await this.items.shown(reply, tenantId, id);
    reply.header('cache-control', 'no-store');
    return { id, secret, previous_secret_valid_until: previousValidUntil };
  }

  /** A paused subscription is sent again what was held for it, then what comes; an active one is left as it is. */
  @Post(':id/resume')
  @RequireScope('central:write')
  @HttpCode(200)
  async resume(@Param('tenant') tenantId: string, @Param('id') id: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    await this.items.found(tenantId, id);
    await this.bus.execute(new WebhookAction(commandOrigin(tenantId, p, req, expectedRevision), id, { kind: 'ResumeWebhook' }));
    return this.items.shown(reply, tenantId, id);
  }

  /** The subscription's events after the feed cursor `after` (up to this request) are delivered again, as new deliveries. */
  @Post(':id/replay')
  @RequireScope('central:write')
  @HttpCode(202)
  async replay(@Param('tenant') tenantId: string, @Param('id') id: string, @Body() dto: WebhookReplayDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<unknown> {
    await this.items.found(tenantId, id);
    await this.bus.execute(new WebhookAction(commandOrigin(tenantId, p, req), id, { kind: 'ReplayWebhook', after: Number(dto.after) }));
    return { id, after: dto.after };
  }
}
