import { Controller, Inject, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { ThemeView } from '../../../projections/themes.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { AdminGuard } from '../auth/admin.guard.js';
import { TenantSingletonRoutes } from '../http/tenant-singleton-routes.js';
import { DeleteTheme, SaveTheme } from './theme-commands.js';
import { themeDefinitionOf, ThemeDto, themeRepresentation } from './theme.dto.js';

/**
 * `{issuer}/configuration/theme`: the tenant's one theme of the edge pages (logo, colours,
 * stylesheet), served to browsers at `{issuer}/assets/theme.css`. Deleting it gives the pages
 * back their built-in look.
 */
@Controller(':tenant/configuration/theme')
@UseGuards(AdminGuard)
export class ThemeController extends TenantSingletonRoutes<ThemeView, ThemeDto> {
  constructor(@Inject(CommandBus) commands: CommandBus, @Inject(READ_STORE) reads: ReadStore) {
    super(commands, reads, {
      view: 'themes',
      missing: 'the tenant has no theme',
      dto: ThemeDto,
      representation: themeRepresentation,
      save: (by, dto) => new SaveTheme(by, themeDefinitionOf(dto)),
      remove: (by) => new DeleteTheme(by),
    });
  }
}
