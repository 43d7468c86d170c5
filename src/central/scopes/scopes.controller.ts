import { Controller, Inject, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { scopeKey, type ScopeView } from '../../../projections/scopes.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import { AdminGuard } from '../auth/admin.guard.js';
import { ItemRoutes, type ItemRoutesKind } from '../http/item-routes.js';
import { adminValidation } from '../http/validation.js';
import { DeleteScope, SaveScope } from './scope-commands.js';
import { scopeDefinitionOf, ScopeDto, scopeRepresentation } from './scope.dto.js';

const SCOPES: ItemRoutesKind<ScopeView, ScopeDto> = {
  view: 'scopes',
  path: 'scopes',
  noun: 'scope',
  key: scopeKey,
  idOf: (x) => x.scopeId,
  render: scopeRepresentation,
  readOnly: ['built_in'],
  dto: ScopeDto,
  idOfDto: (dto) => dto.id,
  save: (by, dto, create) => new SaveScope(by, scopeDefinitionOf(dto), create),
  // Built-in scopes are never deleted (400); a client registered for a deleted scope keeps the name, which then releases nothing.
  remove: (by, id) => new DeleteScope(by, id),
};

/**
 * `{issuer}/configuration/scopes`: the tenant's scopes, what each releases of the user at
 * userinfo, and whether a user's grant carries it only through a role. Every tenant has the
 * built-in `openid`, `profile`, `email` and `offline_access`. A patch changes description,
 * restricted and claims; `id` and `built_in` cannot change.
 */
@Controller(':tenant/configuration/scopes')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class ScopesController extends ItemRoutes<ScopeView, ScopeDto> {
  constructor(@Inject(CommandBus) commands: CommandBus, @Inject(READ_STORE) reads: ReadStore, @Inject(Directory) directory: Directory) {
    super(commands, reads, directory, SCOPES);
  }
}
