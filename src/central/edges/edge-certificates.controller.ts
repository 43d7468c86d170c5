import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { edgeCertificateKey, type EdgeCertificateView } from '../../../projections/edge-certificates.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { commandOrigin } from '../http/item-origin.js';
import { problems } from '../http/problem.js';
import { TenantItems } from '../http/tenant-items.js';
import { adminValidation } from '../http/validation.js';
import { EdgeCa } from './edge-ca.js';
import { RenewEdgeCertificate } from './edge-commands.js';
import { edgeCertificateRepresentation, EdgeCertificateRequestDto } from './edge.dto.js';

/** RFC 8555 §9.1: a certificate and the chain above it, PEM, leaf first. */
const PEM_CHAIN = 'application/pem-certificate-chain';

/**
 * `{issuer}/configuration/clients/edge-certificate`: the client certificates of the tenant's
 * edges. `renew` issues one from the edge's CSR (replacing the edge's previous one), the list
 * says which serials are valid, replaced or revoked, and `ca` is the tenant's edge CA, which
 * whatever checks the edges' certificates trusts.
 */
@Controller(':tenant/configuration/clients/edge-certificate')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class EdgeCertificatesController {
  private readonly items: TenantItems<EdgeCertificateView>;

  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) reads: ReadStore,
    @Inject(Directory) directory: Directory,
    @Inject(EdgeCa) private readonly ca: EdgeCa,
  ) {
    this.items = new TenantItems(reads, directory, {
      view: 'edge_certificates',
      path: 'clients/edge-certificate',
      noun: 'certificate',
      key: edgeCertificateKey,
      idOf: (c) => c.serial,
      render: edgeCertificateRepresentation,
    });
  }

  @Post('renew')
  @RequireScope('central:write')
  @HttpCode(200)
  async renew(@Param('tenant') tenantId: string, @Principal() p: AdminPrincipal, @Body() dto: EdgeCertificateRequestDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const chain = await this.commands.execute(new RenewEdgeCertificate(commandOrigin(tenantId, p, req), dto.edge_id, dto.csr));
    reply.header('content-type', PEM_CHAIN).header('cache-control', 'no-store');
    return chain;
  }

  @Get()
  @RequireScope('central:read')
  list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    return this.items.page(tenantId, req.query, { name: 'status', maxLength: 16 });
  }

  @Get('ca')
  @RequireScope('central:read')
  async caCertificate(@Param('tenant') tenantId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const pem = await this.ca.certificatePem(tenantId);
    if (!pem) throw problems.notFound('the tenant has no edge CA yet: it is made with the first edge certificate');
    reply.header('content-type', PEM_CHAIN);
    return pem;
  }
}
