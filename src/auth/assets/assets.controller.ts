import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { FORM_POST_SCRIPT, LOGOUT_CONTINUE_SCRIPT } from '../../shared/html.js';

/**
 * The script of the pages of the flows, as a file: the Content-Security-Policy of those pages
 * allows same-origin scripts only (`script-src 'self'`), never inline ones. The same for every
 * tenant; the path is relative to the issuer, where the pages are.
 */
@Controller(':tenant')
export class AssetsController {
  @Get('assets/form-post.js')
  formPost(@Res() reply: FastifyReply): void {
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=31536000, immutable').send(FORM_POST_SCRIPT);
  }

  @Get('assets/logout-continue.js')
  logoutContinue(@Res() reply: FastifyReply): void {
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=31536000, immutable').send(LOGOUT_CONTINUE_SCRIPT);
  }
}
