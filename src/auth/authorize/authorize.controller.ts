import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formParams } from '../form-request.js';
import { readParams } from '../params.js';
import { AuthorizeFlow } from './authorize-flow.js';
import { sendFlowResult } from './flow-result.js';

/** The authorization endpoint, GET (query) and POST (form), RFC 6749 §3.1. */
@Controller(':tenant')
export class AuthorizeController {
  constructor(@Inject(AuthorizeFlow) private readonly flow: AuthorizeFlow) {}

  @Get('authorize')
  async get(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    sendFlowResult(reply, await this.flow.start(tenantId, readParams(req.query), req.headers.cookie));
  }

  @Post('authorize')
  async post(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    sendFlowResult(reply, await this.flow.start(tenantId, formParams(req), req.headers.cookie));
  }
}
