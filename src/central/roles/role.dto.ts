import { ArrayMaxSize, IsArray, IsOptional, IsString, Length, Matches } from 'class-validator';
import type { RoleView } from '../../../projections/roles.projection.js';
import type { RoleDefinition } from '../../domain/role/role.events.js';
import { ITEM_ID_MESSAGE, ITEM_ID_PATTERN } from '../resources/resource.dto.js';

/** A role as the admin API takes it: a named set of permissions (their ids, each existing). */
export class RoleDto {
  @IsString()
  @Matches(ITEM_ID_PATTERN, { message: `id ${ITEM_ID_MESSAGE}` })
  id!: string;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @Matches(ITEM_ID_PATTERN, { each: true, message: `each permission ${ITEM_ID_MESSAGE}` })
  permissions?: string[];
}

export function roleDefinitionOf(dto: RoleDto): RoleDefinition {
  return { roleId: dto.id, permissions: [...new Set(dto.permissions ?? [])], ...(dto.name !== undefined ? { name: dto.name } : {}) };
}

export function roleRepresentation(r: RoleView): Record<string, unknown> {
  return { id: r.roleId, ...(r.name !== undefined ? { name: r.name } : {}), permissions: r.permissions, created_at: r.createdAt, updated_at: r.updatedAt };
}
