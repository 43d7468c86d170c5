import { Controller, Delete, HttpCode, Inject, Param, Put, Req, Res, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type RoleView, roleKey } from '../../../projections/roles.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import type { AdminPrincipal } from '../auth/admin-principal.js';
import { AdminGuard, Principal, RequireScope } from '../auth/admin.guard.js';
import { ifMatchRevision, sendEtag } from '../http/etag.js';
import { commandOrigin } from '../http/item-origin.js';
import { problems } from '../http/problem.js';
import { adminValidation } from '../http/validation.js';
import { userRepresentation } from '../users/user.dto.js';
import { AssignRole } from './role-commands.js';

/**
 * `{issuer}/configuration/users/{userId}/roles/{roleId}`: PUT gives the user the role, DELETE
 * takes it away; each is an event on the user's stream (`If-Match` names the user's revision).
 */
@Controller(':tenant/configuration/users/:userId/roles/:roleId')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class UserRolesController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(Directory) private readonly directory: Directory,
  ) {}

  /** Idempotent: a role the user holds already changes nothing. Answers with the user. */
  @Put()
  @RequireScope('central:write')
  async assign(
    @Param('tenant') tenantId: string,
    @Param('userId') userId: string,
    @Param('roleId') roleId: string,
    @Principal() p: AdminPrincipal,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    const expectedRevision = ifMatchRevision(req);
    await this.foundUser(tenantId, userId);
    if (!(await this.reads.get<RoleView>('roles', roleKey(tenantId, roleId)))) throw problems.notFound(`no role ${roleId}`);
    await this.commands.execute(new AssignRole(commandOrigin(tenantId, p, req, expectedRevision), userId, roleId, true));
    const user = await this.foundUser(tenantId, userId);
    sendEtag(reply, user.revision);
    return userRepresentation(user);
  }

  /** 404 when the user does not hold the role. */
  @Delete()
  @RequireScope('central:write')
  @HttpCode(204)
  async unassign(@Param('tenant') tenantId: string, @Param('userId') userId: string, @Param('roleId') roleId: string, @Principal() p: AdminPrincipal, @Req() req: FastifyRequest): Promise<void> {
    const expectedRevision = ifMatchRevision(req);
    await this.foundUser(tenantId, userId);
    await this.commands.execute(new AssignRole(commandOrigin(tenantId, p, req, expectedRevision), userId, roleId, false));
  }

  private async foundUser(tenantId: string, userId: string) {
    const user = await this.directory.user(tenantId, userId);
    if (!user) throw problems.notFound(`no user ${userId}`);
    return user;
  }
}
