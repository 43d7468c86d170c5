import type { FastifyReply } from 'fastify';

/**
 * What an interactive step answers: a redirect, or a page; either may set cookies. A page is
 * never shown inside another site's frame (RFC 6819 §4.4.1.9: clickjacking the login or
 * consent form), except the `form_post` answer (`framable`), which a relying party may load
 * in a hidden iframe to renew its tokens silently.
 */
export type FlowResult =
  | { kind: 'redirect'; location: string; cookies?: string[] }
  | { kind: 'html'; status: number; body: string; cookies?: string[]; framable?: true };

export function sendFlowResult(reply: FastifyReply, result: FlowResult): void {
  reply.header('cache-control', 'no-store');
  if (result.kind === 'html' && !result.framable) reply.header('x-frame-options', 'DENY').header('content-security-policy', "frame-ancestors 'none'");
  if (result.cookies?.length) reply.header('set-cookie', result.cookies);
  if (result.kind === 'redirect') {
    reply.redirect(result.location, 302);
    return;
  }
  reply.status(result.status).header('content-type', 'text/html; charset=utf-8').send(result.body);
}
