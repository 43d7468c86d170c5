import type { ThemeView } from '../../../projections/themes.projection.js';

/** The built-in colours, which a tenant's theme overrides one by one. */
const DEFAULT_COLORS: Record<string, string> = { primary: '#1a56db', primary_text: '#ffffff', background: '#ffffff', text: '#111111', error: '#aa0000' };

/**
 * The stylesheet every page links (`{issuer}/assets/theme.css`): the colours as CSS custom
 * properties (`--edge-primary`, ...), the rules that use them, the logo's size, then the
 * tenant's own CSS, which may override any of it. Colours are validated hex values, so the
 * properties cannot break out of their declarations.
 */
export function themeStylesheet(theme: ThemeView | null): string {
  const colors = { ...DEFAULT_COLORS, ...(theme?.colors ?? {}) };
  const properties = Object.entries(colors)
    .map(([name, value]) => `--edge-${name.replace(/_/g, '-')}:${value}`)
    .join(';');
  return `:root{${properties}}
body{background:var(--edge-background);color:var(--edge-text)}
button{background:var(--edge-primary);color:var(--edge-primary-text);border:1px solid var(--edge-primary);border-radius:.25rem;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid var(--edge-primary);outline-offset:2px}
.error{color:var(--edge-error)}
.logo{display:block;max-height:4rem;max-width:100%;margin-bottom:1rem}
${theme?.css ? `/* tenant */\n${theme.css}\n` : ''}`;
}
