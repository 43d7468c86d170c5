import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { ProxyHandler } from './proxy.handler.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Puts the proxy's routes on Fastify directly, in a context of their own whose one body parser
 * leaves every body unread: the handler streams the raw request on to the upstream, so neither
 * the server's body limit nor its parsers apply there, and nothing is buffered. (A Nest
 * controller's route would get the bodies parsed first.)
 */
@Injectable()
export class ProxyRoute implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapter: HttpAdapterHost,
    @Inject(ProxyHandler) private readonly handler: ProxyHandler,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapter.httpAdapter.getInstance<FastifyInstance>();
    void fastify.register(async (proxy) => {
      proxy.removeAllContentTypeParsers();
      proxy.addContentTypeParser('*', (_req, _payload, done) => done(null));
      const handler = (req: Parameters<ProxyHandler['handle']>[0], reply: Parameters<ProxyHandler['handle']>[1]) => this.handler.handle(req, reply);
      // The resource's root is `/resources/{id}/`: one route, as openapi/edge.yaml has it.
      proxy.route({ method: METHODS, url: '/:tenant/resources/:resourceId/*', handler });
    });
  }
}
