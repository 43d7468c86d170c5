import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, type CommandOrigin } from '../central/command-path.js';
import { streams } from '../domain/shared/stream-names.js';
import { webhookDecider } from '../domain/webhook/webhook.decider.js';
import type { WebhookDefinition } from '../domain/webhook/webhook.events.js';
import { newWebhookSecret, sealWebhookSecret } from '../delivery/webhook-signature.js';
import { KeyEncryption } from '../infrastructure/crypto/key-encryption.js';

const VIEWS = ['webhook_subscriptions'];

/** Creates a subscription; answers its secret, the one time it is seen in the clear. */
export class CreateWebhook extends Command<string> {
  constructor(
    readonly by: CommandOrigin,
    readonly definition: WebhookDefinition,
  ) {
    super();
  }
}

export class UpdateWebhook extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly definition: WebhookDefinition,
  ) {
    super();
  }
}

/** A new secret for the subscription; answers it, the one time it is seen in the clear. The previous one signs too until `previousValidUntil` (seconds since the epoch). */
export class RotateWebhookSecret extends Command<string> {
  constructor(
    readonly by: CommandOrigin,
    readonly subscriptionId: string,
    readonly previousValidUntil: number,
  ) {
    super();
  }
}

/** A subscription's action besides its definition and secret: a resume, a replay, its deletion. */
export class WebhookAction extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly subscriptionId: string,
    readonly action: { kind: 'ResumeWebhook' } | { kind: 'ReplayWebhook'; after: number } | { kind: 'DeleteWebhook' },
  ) {
    super();
  }
}

@CommandHandler(CreateWebhook)
export class CreateWebhookHandler implements ICommandHandler<CreateWebhook, string> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
  ) {}

  async execute(c: CreateWebhook): Promise<string> {
    const { tenantId } = c.by;
    const { subscriptionId } = c.definition;
    const secret = newWebhookSecret();
    const sealedSecret = sealWebhookSecret(this.keys, tenantId, subscriptionId, secret);
    await this.path.run(streams.webhook(tenantId, subscriptionId), webhookDecider, { kind: 'CreateWebhook', tenantId, definition: c.definition, sealedSecret }, c.by, VIEWS);
    return secret;
  }
}

@CommandHandler(UpdateWebhook)
export class UpdateWebhookHandler implements ICommandHandler<UpdateWebhook, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: UpdateWebhook): Promise<void> {
    const { tenantId } = c.by;
    await this.path.run(streams.webhook(tenantId, c.definition.subscriptionId), webhookDecider, { kind: 'UpdateWebhook', tenantId, definition: c.definition }, c.by, VIEWS);
  }
}

@CommandHandler(RotateWebhookSecret)
export class RotateWebhookSecretHandler implements ICommandHandler<RotateWebhookSecret, string> {
  constructor(
    @Inject(CommandPath) private readonly path: CommandPath,
    @Inject(KeyEncryption) private readonly keys: KeyEncryption,
  ) {}

  async execute(c: RotateWebhookSecret): Promise<string> {
    const secret = newWebhookSecret();
    const sealedSecret = sealWebhookSecret(this.keys, c.by.tenantId, c.subscriptionId, secret);
    await this.path.run(streams.webhook(c.by.tenantId, c.subscriptionId), webhookDecider, { kind: 'RotateWebhookSecret', sealedSecret, previousValidUntil: c.previousValidUntil }, c.by, VIEWS);
    return secret;
  }
}

@CommandHandler(WebhookAction)
export class WebhookActionHandler implements ICommandHandler<WebhookAction, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: WebhookAction): Promise<void> {
    await this.path.run(streams.webhook(c.by.tenantId, c.subscriptionId), webhookDecider, c.action, c.by, VIEWS);
  }
}
