import type { FastifyReply } from 'fastify';

/** What an interactive step answers: a redirect, or a page; either may set cookies. */
export type FlowResult =
  | { kind: 'redirect'; location: string; cookies?: string[] }
  | { kind: 'html'; status: number; body: string; cookies?: string[]; framable?: true };

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
  if (!framable) reply.header('x-frame-options', 'DENY').header('content-security-policy', "frame-ancestors 'none'");
  if (result.cookies?.length) reply.header('set-cookie', result.cookies);
  if (result.kind === 'redirect') {
    reply.redirect(result.location, 302);
    return;
  }
  reply.status(result.status).header('content-type', 'text/html; charset=utf-8').send(result.body);
}
