import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import type { ThemeView } from '../../../projections/themes.projection.js';
import { HEX_COLOR, MAX_LOGO_URL, MAX_THEME_CSS, themeFault } from '../../domain/theme/theme.decider.js';
import type { ThemeDefinition } from '../../domain/theme/theme.events.js';
import { problems } from '../http/problem.js';

const HEX = { message: 'must be a hex colour such as #1a56db' };

/** The colours of the pages, each a CSS custom property (`--edge-primary`, ...). */
export class ThemeColorsDto {
  @IsOptional()
  @Matches(HEX_COLOR, HEX)
  primary?: string;

  @IsOptional()
  @Matches(HEX_COLOR, HEX)
  primary_text?: string;

  @IsOptional()
  @Matches(HEX_COLOR, HEX)
  background?: string;

  @IsOptional()
  @Matches(HEX_COLOR, HEX)
  text?: string;

  @IsOptional()
  @Matches(HEX_COLOR, HEX)
  error?: string;
}

/** A tenant's theme as the admin API takes it. */
export class ThemeDto {
  @IsOptional()
  @IsString()
  @MaxLength(MAX_LOGO_URL)
  logo_url?: string;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ThemeColorsDto)
  colors?: ThemeColorsDto;

  @IsOptional()
  @IsString()
  @MaxLength(MAX_THEME_CSS)
  css?: string;
}

export function themeDefinitionOf(dto: ThemeDto): ThemeDefinition {
  const colors = Object.fromEntries(Object.entries(dto.colors ?? {}).filter(([, v]) => v !== undefined)) as ThemeDefinition['colors'];
  const theme: ThemeDefinition = { colors, ...(dto.logo_url !== undefined ? { logoUrl: dto.logo_url } : {}), ...(dto.css !== undefined ? { css: dto.css } : {}) };
  const fault = themeFault(theme);
  if (fault) throw problems.badRequest(fault, [{ path: fault.split(' ')[0], detail: fault }]);
  return theme;
}

export function themeRepresentation(t: ThemeView): Record<string, unknown> {
  return { ...(t.logoUrl !== undefined ? { logo_url: t.logoUrl } : {}), colors: t.colors, ...(t.css !== undefined ? { css: t.css } : {}), created_at: t.createdAt, updated_at: t.updatedAt };
}
