import { Controller, Get, Inject, Injectable, Patch, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Type } from 'class-transformer';
import { IsOptional, ValidateNested } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SYSTEM_SETTINGS_ID, type SystemSettingsView } from '../../../projections/system-settings.projection.js';
import { streams } from '../../domain/shared/stream-names.js';
import { systemSettingsDecider } from '../../domain/system/system-settings.decider.js';
import type { TenantDefaults } from '../../domain/system/system-settings.events.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { originOf } from '../../shared/request-origin.js';
import { actorOf, type AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { DEFAULT_TENANT_SETTINGS } from '../bootstrap/bootstrap-file.js';
import { CommandPath, type CommandOrigin } from '../command-path.js';
import { ifMatchRevision, sendEtag } from '../http/etag.js';
import { mergePatch } from '../http/merge-patch.js';
import { adminValidation, validated } from '../http/validation.js';
import { namedSettingsOf, namedSettingsRepresentation, TenantSettingsDto } from '../tenants/tenant.dto.js';

/** The system settings as the admin API takes them. */
export class SystemSettingsDto {
  @IsOptional()
  @ValidateNested()
  @Type(() => TenantSettingsDto)
  tenant_defaults?: TenantSettingsDto;
}

/** The deployment-wide settings, read from their view (none yet: no defaults of their own). */
@Injectable()
export class SystemSettings {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async current(): Promise<{ tenantDefaults: TenantDefaults; revision: number }> {
    const doc = await this.reads.get<SystemSettingsView>('system_settings', SYSTEM_SETTINGS_ID);
    return doc ? { tenantDefaults: doc.tenantDefaults, revision: doc.revision } : { tenantDefaults: {}, revision: -1 };
  }
}

export class ChangeSystemSettings extends Command<void> {
  constructor(
    readonly by: Omit<CommandOrigin, 'tenantId'>,
    readonly tenantDefaults: TenantDefaults,
  ) {
    super();
  }
}

@CommandHandler(ChangeSystemSettings)
export class ChangeSystemSettingsHandler implements ICommandHandler<ChangeSystemSettings, void> {
  constructor(@Inject(CommandPath) private readonly path: CommandPath) {}

  async execute(c: ChangeSystemSettings): Promise<void> {
    await this.path.run(streams.systemSettings(), systemSettingsDecider, { kind: 'ChangeSystemSettings', tenantDefaults: c.tenantDefaults, builtIn: DEFAULT_TENANT_SETTINGS }, { ...c.by, tenantId: '' }, ['system_settings']);
  }
}

const representation = (d: TenantDefaults) => ({ tenant_defaults: namedSettingsRepresentation(d) });

/** `$PUBLIC_URL/configuration/system-settings` (operator only): the settings new tenants start from where their creation names none. */
@Controller('configuration/system-settings')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class SystemSettingsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(SystemSettings) private readonly settings: SystemSettings,
  ) {}

  @Get()
  @RequireScope('central:read')
  async get(@Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const { tenantDefaults, revision } = await this.settings.current();
    if (revision >= 0) sendEtag(reply, revision);
    return representation(tenantDefaults);
  }

  /** A merge patch; `null` removes a default (the built-in one applies again). */
  @Patch()
  @RequireScope('central:write')
  async patch(@Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const expected = ifMatchRevision(req);
    const current = await this.settings.current();
    const dto = validated(SystemSettingsDto, mergePatch(representation(current.tenantDefaults), req.body));
    const revision = expected ?? current.revision;
    await this.commands.execute(new ChangeSystemSettings({ actor: actorOf(p), origin: originOf(req), ...(revision >= 0 ? { expectedRevision: revision } : {}) }, namedSettingsOf(dto.tenant_defaults ?? {})));
    return this.get(reply);
  }
}
