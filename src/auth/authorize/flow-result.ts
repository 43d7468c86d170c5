import type { FastifyReply } from 'fastify';
import { STYLE_HASH } from '../../shared/html.js';

/**
 * What an interactive step answers: a redirect, or a page; either may set cookies. A page with
 * a form that posts to another origin (form_post to the client's redirect URI) names it in
 * `formAction`.
 */
export type FlowResult =
  | { kind: 'redirect'; location: string; cookies?: string[] }
  | { kind: 'html'; status: number; body: string; cookies?: string[]; framable?: true; formAction?: string; imgSrc?: string; frameSrc?: string[] };

/**
 * Same-origin scripts only, never inline ones; same-origin stylesheets (the tenant's theme) and
 * the pages' one inline style by its hash.
 * `form-action` is set only on the form_post pages, whose one form posts where they say:
 * browsers apply it to the redirects that follow a submission too, and the sign-in, consent
 * and sign-out forms end in a redirect to the client.
 */
const CSP = `default-src 'self'; script-src 'self'; style-src 'self' ${STYLE_HASH}; base-uri 'none'; object-src 'none'`;

/**
 * A CSP source for the origin of `uri` (CSP3 §2.3.1): `https://app.example:8443`; the scheme
 * alone where a host-source cannot name the origin (an IPv6 literal, a native app's scheme).
 */
export function originSource(uri: string): string {
  const url = new URL(uri);
  return (url.protocol === 'http:' || url.protocol === 'https:') && !url.hostname.startsWith('[') ? url.origin : url.protocol;
}

/**
 * Every answer a browser gets here is never cached, and sends no Referer onward (the URL may
 * carry a sealed interaction or the client's request). No page is shown inside another site's
 * frame (RFC 6819 §4.4.1.9: clickjacking), except the `form_post` answer (`framable`), which a
 * relying party may load in a hidden iframe to renew its tokens silently; its Referer is the
 * origin alone, so that its cross-site POST keeps an `Origin` header.
 */
export function sendFlowResult(reply: FastifyReply, result: FlowResult): void {
  const framable = result.kind === 'html' && result.framable === true;
  reply.header('cache-control', 'no-store').header('referrer-policy', framable ? 'strict-origin' : 'no-referrer');
  const formAction = result.kind === 'html' && result.formAction ? `; form-action ${result.formAction}` : '';
  // The tenant's logo may be on another origin (edge pages: the theme's logo_url).
  const imgSrc = `; img-src 'self'${result.kind === 'html' && result.imgSrc ? ` ${result.imgSrc}` : ''}`;
  // The signed-out page frames exactly the front-channel logout URIs' origins; other pages fall back to default-src.
  const frameSrc = result.kind === 'html' && result.frameSrc?.length ? `; frame-src ${result.frameSrc.join(' ')}` : '';
  reply.header('content-security-policy', `${CSP}${imgSrc}${formAction}${frameSrc}${framable ? '' : "; frame-ancestors 'none'"}`);
  if (!framable) reply.header('x-frame-options', 'DENY');
  if (result.cookies?.length) reply.header('set-cookie', result.cookies);
  if (result.kind === 'redirect') {
    reply.redirect(result.location, 302);
    return;
  }
  reply.status(result.status).header('content-type', 'text/html; charset=utf-8').send(result.body);
}

/** The fields of a page's result that its context adds: the CSP source of the tenant's logo. */
export function pageImages(logoUrl: string | undefined): { imgSrc?: string } {
  return logoUrl ? { imgSrc: originSource(logoUrl) } : {};
}
