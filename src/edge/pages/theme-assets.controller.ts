import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ThemeView } from '../../../projections/themes.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import { themeStylesheet } from './theme-css.js';

/**
 * `{issuer}/assets/theme.css`: the tenant's theme as the stylesheet every edge page links (the
 * pages' CSP allows same-origin stylesheets, never inline scripts). Revalidated on each use
 * (RFC 9111 §5.2.2.4 `no-cache`) by its ETag, so a changed theme shows on the next page.
 */
@Controller(':tenant')
export class ThemeAssetsController {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  @Get('assets/theme.css')
  async theme(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.directory.requireTenant(tenantId);
    const theme = await this.reads.get<ThemeView>('themes', tenantId);
    // Weak: the same theme revision always gives the same sheet, byte for byte or not (RFC 9110 §8.8.3).
    const etag = theme ? `W/"theme-${theme.revision}"` : 'W/"theme-default"';
    reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'no-cache').header('etag', etag).header('x-content-type-options', 'nosniff');
    const match = req.headers['if-none-match'];
    if (typeof match === 'string' && match.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
      reply.status(304).send();
      return;
    }
    reply.send(themeStylesheet(theme));
  }
}
