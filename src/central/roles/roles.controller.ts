import { Controller, Inject, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { roleKey, type RoleView } from '../../../projections/roles.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import { AdminGuard } from '../auth/admin.guard.js';
import { ItemRoutes, type ItemRoutesKind } from '../http/item-routes.js';
import { adminValidation } from '../http/validation.js';
import { DeleteRole, SaveRole } from './role-commands.js';
import { roleDefinitionOf, RoleDto, roleRepresentation } from './role.dto.js';

const ROLES: ItemRoutesKind<RoleView, RoleDto> = {
  view: 'roles',
  path: 'roles',
  noun: 'role',
  key: roleKey,
  idOf: (r) => r.roleId,
  render: roleRepresentation,
  dto: RoleDto,
  idOfDto: (dto) => dto.id,
  save: (by, dto, create) => new SaveRole(by, roleDefinitionOf(dto), !create),
  // 409 while users or clients hold the role.
  remove: (by, id) => new DeleteRole(by, id),
};

/**
 * `{issuer}/configuration/roles`: named sets of permissions, assigned to users and clients
 * (users/{id}/roles/{roleId}, clients/{id}/roles/{roleId}). A patch replaces `permissions`
 * whole (arrays are, in a merge patch); `id` cannot change.
 */
@Controller(':tenant/configuration/roles')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class RolesController extends ItemRoutes<RoleView, RoleDto> {
  constructor(@Inject(CommandBus) commands: CommandBus, @Inject(READ_STORE) reads: ReadStore, @Inject(Directory) directory: Directory) {
    super(commands, reads, directory, ROLES);
  }
}
