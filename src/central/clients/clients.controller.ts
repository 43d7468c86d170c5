import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ClientView, clientKey } from '../../../projections/clients.projection.js';
import { randomToken } from '../../infrastructure/crypto/hashing.js';
import { Clock } from '../../infrastructure/nest/clock.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import { originOf } from '../../shared/request-origin.js';
import { actorOf, type AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { CreateClient, type CreateClientResult } from '../commands/create-client.command.js';
import { commandOrigin } from '../http/item-origin.js';
import { ifMatchRevision, sendEtag } from '../http/etag.js';
import { mergePatch } from '../http/merge-patch.js';
import { pageOf, pageQuery } from '../http/paging.js';
import { problems } from '../http/problem.js';
import { adminValidation, validated } from '../http/validation.js';
import { DeleteClient, MAX_SECRET_GRACE_SECONDS, RotateClientSecret, UpdateClient } from './client-commands.js';
import { ClientDto, clientRepresentation, registrationOf, SecretRotationDto } from './client.dto.js';
import { reservedClientIdFault } from '../../domain/client/client-id.js';

/** The grace of a rotated-out secret when the request names none: a day. */
const DEFAULT_SECRET_GRACE_SECONDS = 24 * 3600;

/**
 * `{issuer}/configuration/clients`: the tenant's registered clients (RFC 7591 metadata). Reads
 * come from the clients view; every change is a command on the client's stream.
 */
@Controller(':tenant/configuration/clients')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class ClientsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(Directory) private readonly directory: Directory,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  @Get()
  @RequireScope('central:read')
  async list(@Param('tenant') tenantId: string, @Req() req: FastifyRequest): Promise<unknown> {
    const { limit, after } = pageQuery(req.query);
    const prefix = clientKey(tenantId, '');
    const docs = await this.reads.find<ClientView>('clients', {}, { idPrefix: prefix, ...(after !== undefined ? { afterId: prefix + after } : {}), sortBy: '_id', limit: limit + 1 });
    return pageOf(docs, limit, (c) => c.clientId, clientRepresentation);
  }

  @Post()
  @RequireScope('central:write')
  async create(@Param('tenant') tenantId: string, @Body() dto: ClientDto, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const clientId = dto.client_id ?? randomToken(16);
    const reserved = reservedClientIdFault(clientId);
    if (reserved) throw problems.badRequest(reserved, [{ path: 'client_id', detail: reserved }]);
    const result: CreateClientResult = await this.commands.execute(new CreateClient(tenantId, registrationOf(dto, clientId), undefined, actorOf(p), originOf(req)));
    if (!result.created) throw problems.conflict(`a client ${clientId} exists, or existed: a client id is never given twice`);
    const client = await this.found(tenantId, clientId);
    reply.status(201).header('location', `${this.directory.issuer(tenantId)}/configuration/clients/${encodeURIComponent(clientId)}`).header('cache-control', 'no-store');
    sendEtag(reply, client.revision);
    // The secret is shown here once (RFC 7591 §3.2.1); the server keeps only its digest.
    return { ...clientRepresentation(client), ...(result.clientSecret ? { client_secret: result.clientSecret, client_secret_expires_at: 0 } : {}) };
  }

  @Get(':clientId')
  @RequireScope('central:read')
  async get(@Param('tenant') tenantId: string, @Param('clientId') clientId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const client = await this.found(tenantId, clientId);
    sendEtag(reply, client.revision);
    return clientRepresentation(client);
  }

  /** RFC 7396 JSON Merge Patch of the client's representation; `client_id` cannot change. */
  @Patch(':clientId')
  @RequireScope('central:write')
  async patch(
    @Param('tenant') tenantId: string,
    @Param('clientId') clientId: string,
    @Principal() p: AdminPrincipal,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    const current = await this.found(tenantId, clientId);
    const { created_at: _c, updated_at: _u, previous_secret_valid_until: _p, roles: _r, ...editable } = clientRepresentation(current);
    const dto = validated(ClientDto, mergePatch(editable, req.body));
    if (dto.client_id !== clientId) throw problems.badRequest('client_id cannot change', [{ path: 'client_id', detail: 'cannot change' }]);
    await this.commands.execute(new UpdateClient(commandOrigin(tenantId, p, req, expectedRevision ?? current.revision), registrationOf(dto, clientId)));
    return this.get(tenantId, clientId, reply);
  }

  @Delete(':clientId')
  @RequireScope('central:write')
  @HttpCode(204)
  async remove(@Param('tenant') tenantId: string, @Param('clientId') clientId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.found(tenantId, clientId);
    await this.commands.execute(new DeleteClient(commandOrigin(tenantId, p, req, expectedRevision), clientId));
  }

  /** A new server-generated secret, shown once; the previous one stays valid for `grace_period` seconds. */
  @Post(':clientId/secret')
  @RequireScope('central:write')
  @HttpCode(200)
  async rotateSecret(
    @Param('tenant') tenantId: string,
    @Param('clientId') clientId: string,
    @Body() dto: SecretRotationDto,
    @Principal() p: AdminPrincipal,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    await this.found(tenantId, clientId);
    const grace = Math.min(dto?.grace_period ?? DEFAULT_SECRET_GRACE_SECONDS, MAX_SECRET_GRACE_SECONDS);
    const rotated = await this.commands.execute(new RotateClientSecret(commandOrigin(tenantId, p, req, expectedRevision), clientId, grace, this.clock.seconds()));
    const client = await this.found(tenantId, clientId);
    reply.header('cache-control', 'no-store');
    sendEtag(reply, client.revision);
    return { client_id: clientId, client_secret: rotated.secret, client_secret_expires_at: 0, previous_secret_valid_until: rotated.previousValidUntil };
  }

  private async found(tenantId: string, clientId: string): Promise<ClientView> {
    const client = await this.directory.client(tenantId, clientId);
    if (!client) throw problems.notFound(`no client ${clientId}`);
    return client;
  }
}
