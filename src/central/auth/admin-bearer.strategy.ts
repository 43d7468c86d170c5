import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { Strategy } from 'passport-custom';
import type { AdminPrincipal } from './admin-principal.js';
import { AdminTokens } from './admin-tokens.js';

/** The Passport strategy of the admin API: the request's bearer token, as AdminTokens reads it. */
@Injectable()
export class AdminBearerStrategy extends PassportStrategy(Strategy, 'admin-bearer') {
  constructor(@Inject(AdminTokens) private readonly tokens: AdminTokens) {
    super();
  }

  validate(req: FastifyRequest): Promise<AdminPrincipal> {
    return this.tokens.principal(req);
  }
}
