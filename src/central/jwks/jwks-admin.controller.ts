import { Body, Controller, Get, Inject, Param, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IsIn, IsOptional } from 'class-validator';
import { SIGNING_ALGS, type SigningAlg } from '../../domain/tenant/tenant.events.js';
import { KeyRing } from '../../infrastructure/crypto/key-ring.js';
import { Directory } from '../../shared/directory.js';
import { originOf } from '../../shared/request-origin.js';
import { actorOf, type AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { adminValidation } from '../http/validation.js';
import { ANNOUNCE_SECONDS } from './key-rotation.js';

export class GenerateKeyDto {
  @IsOptional()
  @IsIn(SIGNING_ALGS)
  alg?: string;
}

const iso = (seconds: number | undefined) => (seconds === undefined ? undefined : new Date(seconds * 1000).toISOString());

/**
 * `{issuer}/configuration/jwks`: the tenant's signing keys and their lives (announced, current,
 * retiring, retired), never a private part; `generate` announces a new key, which signs once
 * relying parties have had time to fetch it (ANNOUNCE_SECONDS).
 */
@Controller(':tenant/configuration/jwks')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class JwksAdminController {
  constructor(
    @Inject(KeyRing) private readonly keys: KeyRing,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  @Get('keys')
  @RequireScope('central:read')
  async list(@Param('tenant') tenantId: string): Promise<unknown> {
    const keys = await this.keys.lifecycle(tenantId);
    return {
      items: keys.map((k) => ({
        kid: k.kid,
        alg: k.alg,
        status: k.status,
        created_at: k.createdAt,
        activates_at: iso(k.activatesAt),
        ...(k.replacedAt !== undefined ? { replaced_at: iso(k.replacedAt), retires_at: iso(k.retiresAt) } : {}),
      })),
    };
  }

  @Post('generate')
  @RequireScope('central:write')
  async generate(@Param('tenant') tenantId: string, @Body() dto: GenerateKeyDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const tenant = (await this.directory.tenant(tenantId))!;
    const alg = (dto?.alg ?? tenant.signingAlg) as SigningAlg;
    const { kid } = await this.keys.generate(tenantId, alg, false, ANNOUNCE_SECONDS, actorOf(p), originOf(req));
    const key = (await this.keys.lifecycle(tenantId)).find((k) => k.kid === kid)!;
    reply.status(201);
    return { kid, alg, status: key.status, created_at: key.createdAt, activates_at: iso(key.activatesAt) };
  }
}
