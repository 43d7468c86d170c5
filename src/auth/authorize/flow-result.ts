import type { FastifyReply } from 'fastify';

/** What an interactive step answers: a redirect, or a page; either may set cookies. */
export type FlowResult =
  | { kind: 'redirect'; location: string; cookies?: string[] }
  | { kind: 'html'; status: number; body: string; cookies?: string[] };

export function sendFlowResult(reply: FastifyReply, result: FlowResult): void {
  reply.header('cache-control', 'no-store');
  if (result.cookies?.length) reply.header('set-cookie', result.cookies);
  if (result.kind === 'redirect') {
    reply.redirect(result.location, 302);
    return;
  }
  reply.status(result.status).header('content-type', 'text/html; charset=utf-8').send(result.body);
}
