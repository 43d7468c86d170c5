import { hash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { EN, type MessageKey, type Messages } from '../edge/pages/messages.en.js';

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
 * The signed-out page's continuation (`{tenant}/assets/logout-continue.js`): to the link
 * `#continue` once the front-channel logout iframes have loaded (the window's load event waits
 * for them; this script, parser-blocking, always runs before it), or after 5 s at most.
 */
export const LOGOUT_CONTINUE_SCRIPT = `(function () {
  var link = document.getElementById('continue');
  if (!link) return;
  var gone = false;
  function go() { if (!gone) { gone = true; window.location.replace(link.href); } }
  window.addEventListener('load', go);
  setTimeout(go, 5000);
})();
`;

/** What every page is rendered in: its language (`<html lang>`), that language's texts, and the tenant's logo (https) if it has one. */
export interface PageContext {
  lang: string;
  messages: Messages;
  logoUrl?: string;
}

/** The built-in English texts, for pages rendered outside any request's language choice. */
export const ENGLISH: PageContext = { lang: 'en', messages: EN };

/**
 * The page templates (`src/edge/views`, copied next to the compiled code by the build). Every
 * `<%= %>` is HTML-escaped; raw output (`<%~ %>`) only for markup rendered here.
 */
const engine = new Eta({ views: fileURLToPath(new URL('../edge/views', import.meta.url)), autoEscape: true, cache: true });

/** `text` with each `{name}` replaced by `vars[name]` (plain text: the template escapes it). */
export function fill(text: string, vars: Record<string, string | number> = {}): string {
  return text.replace(/\{(\w+)\}/g, (all, name: string) => (name in vars ? String(vars[name]) : all));
}

/**
 * A page from the template `view` (`sign-in`, `consent`, ...), with `data`, in `ctx`'s language:
 * templates read texts through `it.t(key, vars)`. `titleKey`: the text of its `<title>`.
 */
export function render(view: string, titleKey: MessageKey, data: Record<string, unknown>, ctx: PageContext = ENGLISH, script?: string): string {
  const t = (key: MessageKey, vars?: Record<string, string | number>) => fill(ctx.messages[key] ?? EN[key], vars);
  return engine.render(`./${view}`, { ...data, t, lang: ctx.lang, logo: ctx.logoUrl, title: t(titleKey), style: STYLE, script });
}

/**
 * A minimal page: no scripts unless a same-origin one is named (`script`, relative to the
 * tenant's issuer, where every page of the flows is served), works without JavaScript. `body`
 * is markup the caller escaped itself; prefer `render` with a template.
 */
export function page(title: string, body: string, script?: string): string {
  return engine.render('./raw', { html: body, lang: 'en', title, style: STYLE, script });
}

/**
 * An auto-submitting form (OAuth 2.0 Form Post Response Mode); a button covers disabled
 * JavaScript. `atOnce: false`: no automatic submit, only the button.
 */
export function formPostPage(action: string, fields: Record<string, string | undefined>, atOnce = true, ctx: PageContext = ENGLISH): string {
  const hidden = Object.entries(fields).filter((f): f is [string, string] => f[1] !== undefined);
  const data = { action, fields: hidden, atOnce };
  return atOnce ? render('form-post', 'formPost.title', data, ctx, 'assets/form-post.js') : render('form-post', 'formPost.continueTitle', data, ctx);
}
