import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { tenantDecider } from '../../domain/tenant/tenant.decider.js';
import { DEFAULT_SESSION_IDLE_TIMEOUT, DEFAULT_SESSION_MAX_AGE, type TenantSettings } from '../../domain/tenant/tenant.events.js';
import { streams } from '../../domain/shared/stream-names.js';
import { AggregateStore } from '../../infrastructure/event-store/aggregate-store.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { ProjectionRunner } from '../../infrastructure/read-store/projection-runner.js';

export interface CommandResult {
  /** False when the thing already existed (nothing was appended). */
  created: boolean;
  /** When it existed: the fields asked for (by their names in the bootstrap file) that differ from what it has, which were not applied. */
  unapplied?: string[];
}

/** A value as compared: lists (redirect URIs, grant types, scopes) in any order. */
const canonical = (v: unknown) => JSON.stringify(Array.isArray(v) ? [...(v as unknown[])].sort() : v);

/**
 * The fields in which what was asked for and what is stored differ (either may lack one), by
 * their snake_case names as the bootstrap file writes them. (A client's secret is compared apart,
 * against its digest: see create-client.command.ts.)
 */
export function unappliedFields(asked: object, stored: object): string[] {
  const a = asked as Record<string, unknown>;
  const s = stored as Record<string, unknown>;
  return [...new Set([...Object.keys(a), ...Object.keys(s)])]
    .filter((k) => canonical(a[k]) !== canonical(s[k]))
    .map((k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
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
    const { position, state } = await this.aggregates.execute(
      streams.tenant(c.tenantId),
      tenantDecider,
      { kind: 'CreateTenant', tenantId: c.tenantId, settings: c.settings },
      { tenantId: c.tenantId, actor: c.actor, now: this.clock.now() },
    );
    if (position) await this.projections.waitFor(['tenants'], position);
    if (position > 0 || !state.exists) return { created: position > 0 };
    // Tenants created before the session settings existed lack them, and are served with their defaults (as the tenants view does).
    const { exists: _e, tenantId: _t, ...stored } = state;
    const served = { sessionMaxAge: DEFAULT_SESSION_MAX_AGE, sessionIdleTimeout: DEFAULT_SESSION_IDLE_TIMEOUT, ...stored };
    return { created: false, unapplied: unappliedFields(c.settings, served) };
  }
}
