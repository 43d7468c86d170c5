import { Controller, Inject, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { type PermissionView, permissionKey } from '../../../projections/permissions.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import { AdminGuard } from '../auth/admin.guard.js';
import { ItemRoutes, type ItemRoutesKind } from '../http/item-routes.js';
import { adminValidation } from '../http/validation.js';
import { CreatePermission, DeletePermission, UpdatePermission } from './permission-commands.js';
import { permissionDefinitionOf, PermissionDto, permissionRepresentation } from './permission.dto.js';

const PERMISSIONS: ItemRoutesKind<PermissionView, PermissionDto> = {
  view: 'permissions',
  path: 'permissions',
  noun: 'permission',
  key: permissionKey,
  idOf: (x) => x.permissionId,
  render: permissionRepresentation,
  dto: PermissionDto,
  idOfDto: (dto) => dto.id,
  filter: { name: 'resource', maxLength: 128 },
  fixed: (p) => ({ resource: p.resource }),
  save: (by, dto, create) => (create ? new CreatePermission(by, permissionDefinitionOf(dto)) : new UpdatePermission(by, permissionDefinitionOf(dto))),
  // 409 while a role includes the permission.
  remove: (by, id) => new DeletePermission(by, id),
};

/**
 * `{issuer}/configuration/permissions`: named rights, each on one resource (or on `central`,
 * the admin scopes); listed by id, `?resource=` keeps those of one resource. A patch changes the
 * description; `id` and `resource` cannot change.
 */
@Controller(':tenant/configuration/permissions')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class PermissionsController extends ItemRoutes<PermissionView, PermissionDto> {
  constructor(@Inject(CommandBus) commands: CommandBus, @Inject(READ_STORE) reads: ReadStore, @Inject(Directory) directory: Directory) {
    super(commands, reads, directory, PERMISSIONS);
  }
}
