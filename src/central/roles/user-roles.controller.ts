import { Controller, Delete, HttpCode, Inject, Param, Put, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type RoleView, roleKey } from '../../../projections/roles.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { clientRepresentation } from '../clients/client.dto.js';
import { ifMatchRevision, sendEtag } from '../http/etag.js';
import { commandOrigin } from '../http/item-origin.js';
import { problems } from '../http/problem.js';
import { adminValidation } from '../http/validation.js';
import { userRepresentation } from '../users/user.dto.js';
import { AssignRole, type RoleHolder } from './role-commands.js';

/** A holder of roles as the routes find and show it: its ETag (revision) and representation, or null when there is none. */
type Found = { revision: number; shown: Record<string, unknown> } | null;

/**
 * PUT gives the holder the role (idempotent: a role it holds already changes nothing) and
 * answers with the holder; DELETE takes it away (404 when not held). Each is an event on the
 * holder's stream; `If-Match` names the holder's revision.
 */
class HolderRoles {
  constructor(
    private readonly commands: CommandBus,
    private readonly reads: ReadStore,
    private readonly noun: string,
    private readonly find: (tenantId: string, id: string) => Promise<Found>,
    private readonly holder: (id: string) => RoleHolder,
  ) {}

  private async found(tenantId: string, id: string): Promise<NonNullable<Found>> {
    const found = await this.find(tenantId, id);
    if (!found) throw problems.notFound(`no ${this.noun} ${id}`);
    return found;
  }

  async assign(tenantId: string, id: string, roleId: string, p: AdminPrincipal, req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    await this.found(tenantId, id);
    if (!(await this.reads.get<RoleView>('roles', roleKey(tenantId, roleId)))) throw problems.notFound(`no role ${roleId}`);
    await this.commands.execute(new AssignRole(commandOrigin(tenantId, p, req, expectedRevision), this.holder(id), roleId, true));
    const after = await this.found(tenantId, id);
    sendEtag(reply, after.revision);
    return after.shown;
  }

  async unassign(tenantId: string, id: string, roleId: string, p: AdminPrincipal, req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.found(tenantId, id);
    await this.commands.execute(new AssignRole(commandOrigin(tenantId, p, req, expectedRevision), this.holder(id), roleId, false));
  }
}

/** `{issuer}/configuration/users/{userId}/roles/{roleId}`. */
@Controller(':tenant/configuration/users/:userId/roles/:roleId')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class UserRolesController {
  private readonly roles: HolderRoles;

  constructor(@Inject(CommandBus) commands: CommandBus, @Inject(READ_STORE) reads: ReadStore, @Inject(Directory) directory: Directory) {
    const find = async (tenantId: string, userId: string): Promise<Found> => {
      const user = await directory.user(tenantId, userId);
      return user && { revision: user.revision, shown: userRepresentation(user) };
    };
    this.roles = new HolderRoles(commands, reads, 'user', find, (userId) => ({ kind: 'user', userId }));
  }

  @Put()
  @RequireScope('central:write')
  assign(@Param('tenant') t: string, @Param('userId') id: string, @Param('roleId') roleId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.roles.assign(t, id, roleId, p, req, reply);
  }

  @Delete()
  @RequireScope('central:write')
  @HttpCode(204)
  unassign(@Param('tenant') t: string, @Param('userId') id: string, @Param('roleId') roleId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    return this.roles.unassign(t, id, roleId, p, req);
  }
}

/** `{issuer}/configuration/clients/{clientId}/roles/{roleId}`: roles a client holds for its own tokens. */
@Controller(':tenant/configuration/clients/:clientId/roles/:roleId')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class ClientRolesController {
  private readonly roles: HolderRoles;

  constructor(@Inject(CommandBus) commands: CommandBus, @Inject(READ_STORE) reads: ReadStore, @Inject(Directory) directory: Directory) {
    const find = async (tenantId: string, clientId: string): Promise<Found> => {
      const client = await directory.client(tenantId, clientId);
      return client && { revision: client.revision, shown: clientRepresentation(client) };
    };
    this.roles = new HolderRoles(commands, reads, 'client', find, (clientId) => ({ kind: 'client', clientId }));
  }

  @Put()
  @RequireScope('central:write')
  assign(@Param('tenant') t: string, @Param('clientId') id: string, @Param('roleId') roleId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.roles.assign(t, id, roleId, p, req, reply);
  }

  @Delete()
  @RequireScope('central:write')
  @HttpCode(204)
  unassign(@Param('tenant') t: string, @Param('clientId') id: string, @Param('roleId') roleId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    return this.roles.unassign(t, id, roleId, p, req);
  }
}
