import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AdminGuard } from '../central/auth/admin.guard.js';
import { CommandPath } from '../central/command-path.js';
import { DeliveryModule } from '../delivery/delivery.module.js';
import { CreateWebhookHandler, RotateWebhookSecretHandler, UpdateWebhookHandler, WebhookActionHandler } from './webhook-commands.js';
import { WebhookFollower } from './webhook-follower.js';
import { WebhookKind } from './webhook-kind.js';
import { WebhooksController } from './webhooks.controller.js';

/** Webhooks (Standard Webhooks): subscriptions in the admin API, their deliveries a kind of the shared delivery machinery. */
@Module({
  imports: [CqrsModule, DeliveryModule],
  controllers: [WebhooksController],
  providers: [CreateWebhookHandler, UpdateWebhookHandler, RotateWebhookSecretHandler, WebhookActionHandler, CommandPath, WebhookFollower, WebhookKind, AdminGuard],
})
export class WebhooksModule {}
