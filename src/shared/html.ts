/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A minimal page: no scripts unless given, works without JavaScript. */
export function page(title: string, body: string, script?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.4rem}button{margin-top:1rem;padding:.5rem 1rem}.error{color:#a00}</style></head>
<body>${body}${script ? `<script>${script}</script>` : ''}</body></html>`;
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
  return atOnce ? page('Submitting…', form(`<noscript>${button}</noscript>`), 'document.forms[0].submit()') : page('Continue', form(button));
}
