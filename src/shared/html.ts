import { hash } from 'node:crypto';

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.4rem}button{margin-top:1rem;padding:.5rem 1rem}.error{color:#a00}';

/** The one inline style of every page, allowed by its hash in the Content-Security-Policy (CSP3 §8.3: hash-source). */
export const STYLE_HASH = `'sha256-${hash('sha256', STYLE, 'base64')}'`;

/** The form_post auto-submit, served as a file (`{tenant}/assets/form-post.js`): no page carries inline script. */
export const FORM_POST_SCRIPT = 'document.forms[0].submit();\n';

/**
 * A minimal page: no scripts unless a same-origin one is named (`script`, relative to the
 * tenant's issuer, where every page of the flows is served), works without JavaScript.
 */
export function page(title: string, body: string, script?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
<body>${body}${script ? `<script src="${escapeHtml(script)}"></script>` : ''}</body></html>`;
}

/**
 * An auto-submitting form (OAuth 2.0 Form Post Response Mode); a button covers disabled
 * JavaScript. `atOnce: false`: no automatic submit, only the button.
 */
export function formPostPage(action: string, fields: Record<string, string | undefined>, atOnce = true): string {
  const inputs = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v!)}">`)
    .join('');
  const form = (button: string) => `<form method="post" action="${escapeHtml(action)}">${inputs}${button}</form>`;
  const button = '<button type="submit">Continue</button>';
  return atOnce ? page('Submitting…', form(`<noscript>${button}</noscript>`), 'assets/form-post.js') : page('Continue', form(button));
}
