import { Controller, Inject, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { type ResourceView, resourceKey } from '../../../projections/resources.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import { AdminGuard } from '../auth/admin.guard.js';
import { ItemRoutes, type ItemRoutesKind } from '../http/item-routes.js';
import { adminValidation } from '../http/validation.js';
import { CreateResource, DeleteResource, UpdateResource } from './resource-commands.js';
import { resourceDefinitionOf, ResourceDto, resourceRepresentation } from './resource.dto.js';

const RESOURCES: ItemRoutesKind<ResourceView, ResourceDto> = {
  view: 'resources',
  path: 'resources',
  noun: 'resource',
  key: resourceKey,
  idOf: (r) => r.resourceId,
  render: resourceRepresentation,
  dto: ResourceDto,
  idOfDto: (dto) => dto.id,
  filter: { name: 'identifier', maxLength: 2048 },
  fixed: (r) => ({ identifier: r.identifier }),
  save: (by, dto, create) => (create ? new CreateResource(by, resourceDefinitionOf(dto)) : new UpdateResource(by, resourceDefinitionOf(dto))),
  // 409 while permissions are defined on the resource.
  remove: (by, id) => new DeleteResource(by, id),
};

/**
 * `{issuer}/configuration/resources`: the tenant's APIs (resource servers). An identifier (the
 * `aud` of tokens for the resource) is never given to another resource, even once its resource
 * is deleted; a patch cannot change `id` or `identifier`.
 */
@Controller(':tenant/configuration/resources')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class ResourcesController extends ItemRoutes<ResourceView, ResourceDto> {
  constructor(@Inject(CommandBus) commands: CommandBus, @Inject(READ_STORE) reads: ReadStore, @Inject(Directory) directory: Directory) {
    super(commands, reads, directory, RESOURCES);
  }
}
