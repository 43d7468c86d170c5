import type { DomainEvent } from '../shared/decider.js';

/** The colours a theme may set, each a CSS custom property of the pages (`--edge-primary`, ...). */
export const THEME_COLORS = ['primary', 'primary_text', 'background', 'text', 'error'] as const;
export type ThemeColor = (typeof THEME_COLORS)[number];

/** A tenant's look of the edge pages: a logo (https), colours (hex), and a stylesheet of its own. */
export interface ThemeDefinition {
  logoUrl?: string;
  colors: Partial<Record<ThemeColor, string>>;
  css?: string;
}

/** The whole theme after an admin's change. */
export type ThemeChanged = DomainEvent<'ThemeChanged', { tenantId: string } & ThemeDefinition>;
export type ThemeDeleted = DomainEvent<'ThemeDeleted', { tenantId: string }>;

export type ThemeEvent = ThemeChanged | ThemeDeleted;
