import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { streams } from '../../domain/shared/stream-names.js';
import { tenantDecider } from '../../domain/tenant/tenant.decider.js';
import type { TenantSettings } from '../../domain/tenant/tenant.events.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';

/** A tenant's settings replaced whole; they apply to the very next request (every endpoint reads the tenants view). */
export class ChangeTenantSettings extends Command<void> {
  constructor(
    readonly by: CommandOrigin,
    readonly settings: Omit<TenantSettings, 'operator'>,
  ) {
    super();
  }
}

/** Deletes a tenant (not the operator tenant): every endpoint of it answers 404 from then on, so its tokens are dead. */
export class DeleteTenant extends Command<void> {
  constructor(readonly by: CommandOrigin) {
    super();
  }
}

@CommandHandler(DeleteTenant)
export class DeleteTenantHandler implements ICommandHandler<DeleteTenant, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: DeleteTenant): Promise<void> {
    await this.path.run(streams.tenant(c.by.tenantId), tenantDecider, { kind: 'DeleteTenant' }, c.by, ['tenants']);
  }
}

@CommandHandler(ChangeTenantSettings)
export class ChangeTenantSettingsHandler implements ICommandHandler<ChangeTenantSettings, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: ChangeTenantSettings): Promise<void> {
    await this.path.run(streams.tenant(c.by.tenantId), tenantDecider, { kind: 'ChangeTenantSettings', settings: c.settings }, c.by, ['tenants']);
  }
}
