import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import { THEME_COLORS, type ThemeDefinition, type ThemeEvent } from './theme.events.js';

/** The largest stylesheet a tenant may give, in characters. */
export const MAX_THEME_CSS = 32 * 1024;
export const MAX_LOGO_URL = 2048;
export const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export type ThemeCommand = { kind: 'SetTheme'; tenantId: string; theme: ThemeDefinition } | { kind: 'DeleteTheme' };

export interface ThemeState {
  tenantId?: string;
  theme?: ThemeDefinition;
}

/** Why `theme` cannot be taken, or undefined. */
export function themeFault(theme: ThemeDefinition): string | undefined {
  if (theme.logoUrl !== undefined) {
    const url = URL.canParse(theme.logoUrl) ? new URL(theme.logoUrl) : undefined;
    if (!url || url.protocol !== 'https:' || theme.logoUrl.length > MAX_LOGO_URL || url.username || url.password) return `logo_url must be an https URL of at most ${MAX_LOGO_URL} characters, without credentials`;
  }
  for (const [name, value] of Object.entries(theme.colors)) {
    if (!(THEME_COLORS as readonly string[]).includes(name)) return `no colour is named ${name}`;
    if (typeof value !== 'string' || !HEX_COLOR.test(value)) return `colors.${name} must be a hex colour such as #1a56db`;
  }
  if (theme.css !== undefined && theme.css.length > MAX_THEME_CSS) return `css must be at most ${MAX_THEME_CSS} characters`;
  return undefined;
}

export const themeDecider: Decider<ThemeCommand, ThemeEvent, ThemeState> = {
  initialState: {},
  decide(command, state) {
    switch (command.kind) {
      case 'SetTheme': {
        const fault = themeFault(command.theme);
        if (fault) throw new DomainError('invalid_value', `theme: ${fault}`);
        if (state.theme && JSON.stringify(state.theme) === JSON.stringify(command.theme)) return [];
        return [{ type: 'ThemeChanged', data: { tenantId: command.tenantId, ...command.theme } }];
      }
      case 'DeleteTheme':
        if (!state.theme || !state.tenantId) throw new DomainError('not_found', 'the tenant has no theme');
        return [{ type: 'ThemeDeleted', data: { tenantId: state.tenantId } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ThemeChanged': {
        const { tenantId, ...theme } = event.data;
        return { tenantId, theme };
      }
      case 'ThemeDeleted':
        return { tenantId: state.tenantId };
      default:
        return assertNever(event);
    }
  },
};
