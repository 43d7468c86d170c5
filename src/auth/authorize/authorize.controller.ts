import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formBody } from '../form-request.js';
import { OAuthError, UserFacingError } from '../oauth-errors.js';
import { type ParamsWithRepeats, readParamsNamingRepeats } from '../params.js';
import { AuthorizeFlow } from './authorize-flow.js';
import { sendFlowResult } from './flow-result.js';
import { originOf } from '../../shared/request-origin.js';

/**
 * The request's parameters, and those sent more than once. When they cannot be read (a body
 * that is not a form) neither client_id nor redirect_uri can be trusted, so the user sees the
 * error page (RFC 6749 §4.1.2.1) rather than a JSON error or a redirect.
 */
function authorizeParams(read: () => ParamsWithRepeats): ParamsWithRepeats {
  try {
    return read();
  } catch (e) {
    throw e instanceof OAuthError ? new UserFacingError(e) : e;
  }
}

/** The authorization endpoint, GET (query) and POST (form), RFC 6749 §3.1. */
@Controller(':tenant')
export class AuthorizeController {
  constructor(@Inject(AuthorizeFlow) private readonly flow: AuthorizeFlow) {}

  @Get('authorize')
  async get(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    sendFlowResult(reply, await this.flow.start(tenantId, authorizeParams(() => readParamsNamingRepeats(req.query)), req.headers.cookie, originOf(req)));
  }

  @Post('authorize')
  async post(@Param('tenant') tenantId: string, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    sendFlowResult(reply, await this.flow.start(tenantId, authorizeParams(() => readParamsNamingRepeats(formBody(req))), req.headers.cookie, originOf(req)));
  }
}
