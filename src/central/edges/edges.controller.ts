import { Controller, Inject, UseGuards, UsePipes } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { edgeKey, type EdgeView } from '../../../projections/edges.projection.js';
import { READ_STORE, type ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { Directory } from '../../shared/directory.js';
import { AdminGuard } from '../auth/admin.guard.js';
import { ItemRoutes, type ItemRoutesKind } from '../http/item-routes.js';
import { adminValidation } from '../http/validation.js';
import { DeleteEdge, SaveEdge } from './edge-commands.js';
import { edgeDefinitionOf, EdgeDto, edgeRepresentation } from './edge.dto.js';

const EDGES: ItemRoutesKind<EdgeView, EdgeDto> = {
  view: 'edges',
  path: 'edges',
  noun: 'edge',
  key: edgeKey,
  idOf: (e) => e.edgeId,
  render: edgeRepresentation,
  // Set by certificate renewals, not by the admin.
  readOnly: ['certificate', 'last_renewal'],
  dto: EdgeDto,
  idOfDto: (dto) => dto.id,
  save: (by, dto, create) => new SaveEdge(by, edgeDefinitionOf(dto), create),
  // Revokes the edge's certificate.
  remove: (by, id) => new DeleteEdge(by, id),
};

/**
 * `{issuer}/configuration/edges`: the tenant's registered traffic-plane instances. Setting
 * `status` to `disabled`, or deleting the edge, revokes its client certificate; certificates
 * are issued at `/configuration/clients/edge-certificate/renew`.
 */
@Controller(':tenant/configuration/edges')
@UseGuards(AdminGuard)
@UsePipes(adminValidation)
export class EdgesController extends ItemRoutes<EdgeView, EdgeDto> {
  constructor(@Inject(CommandBus) commands: CommandBus, @Inject(READ_STORE) reads: ReadStore, @Inject(Directory) directory: Directory) {
    super(commands, reads, directory, EDGES);
  }
}
