import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { tenantDecider } from '../../domain/tenant/tenant.decider.js';
import type { TenantSettings } from '../../domain/tenant/tenant.events.js';
import { streams } from '../../domain/shared/stream-names.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { ProjectionRunner } from '../../infrastructure/read-store/projection-runner.js';

export interface CommandResult {
  /** False when the thing already existed as asked (nothing was appended). */
  created: boolean;
}

export class CreateTenant extends Command<CommandResult> {
  constructor(
    readonly tenantId: string,
    readonly settings: TenantSettings,
    readonly actor: string,
  ) {
    super();
  }
}

@CommandHandler(CreateTenant)
export class CreateTenantHandler implements ICommandHandler<CreateTenant, CommandResult> {
  constructor(
    @Inject(AggregateStore) private readonly aggregates: AggregateStore,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(c: CreateTenant): Promise<CommandResult> {
    const { position } = await this.aggregates.execute(
      streams.tenant(c.tenantId),
      tenantDecider,
      { kind: 'CreateTenant', tenantId: c.tenantId, settings: c.settings },
      { tenantId: c.tenantId, actor: c.actor, now: this.clock.now() },
    );
    if (position) await this.projections.waitFor(['tenants'], position);
    return { created: position > 0 };
  }
}
