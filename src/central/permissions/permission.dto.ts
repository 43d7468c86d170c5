import { IsOptional, IsString, Length, Matches } from 'class-validator';
import type { PermissionView } from '../../../projections/permissions.projection.js';
import type { PermissionDefinition } from '../../domain/permission/permission.events.js';
import { ITEM_ID_MESSAGE, ITEM_ID_PATTERN } from '../resources/resource.dto.js';

/** A permission as the admin API takes it: its id is its name (`invoices:approve`). */
export class PermissionDto {
  @IsString()
  @Matches(ITEM_ID_PATTERN, { message: `id ${ITEM_ID_MESSAGE}` })
  id!: string;

  /** A resource's id, or `central` (the admin API's own: central:read, central:write, central:audit). */
  @IsString()
  @Matches(ITEM_ID_PATTERN, { message: `resource ${ITEM_ID_MESSAGE}` })
  resource!: string;

  @IsOptional()
  @IsString()
  @Length(1, 500)
  description?: string;
}

export function permissionDefinitionOf(dto: PermissionDto): PermissionDefinition {
  return { permissionId: dto.id, resource: dto.resource, ...(dto.description !== undefined ? { description: dto.description } : {}) };
}

export function permissionRepresentation(p: PermissionView): Record<string, unknown> {
  return { id: p.permissionId, resource: p.resource, ...(p.description !== undefined ? { description: p.description } : {}), created_at: p.createdAt, updated_at: p.updatedAt };
}
