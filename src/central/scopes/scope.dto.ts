import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import type { ScopeView } from '../../../projections/scopes.projection.js';
import { RELEASABLE_CLAIMS } from '../../domain/scope/built-in-scopes.js';
import type { ScopeDefinition } from '../../domain/scope/scope.events.js';
import { ITEM_ID_MESSAGE, ITEM_ID_PATTERN } from '../resources/resource.dto.js';

/** A scope as the admin API takes it. */
export class ScopeDto {
  @IsString()
  @Matches(ITEM_ID_PATTERN, { message: `id ${ITEM_ID_MESSAGE}` })
  id!: string;

  @IsOptional()
  @IsString()
  @Length(1, 500)
  description?: string;

  /** Whether a user's grant carries it only through a role that includes a permission of that name. */
  @IsOptional()
  @IsBoolean()
  restricted?: boolean;

  /** The user's claims it releases at userinfo. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(RELEASABLE_CLAIMS.length)
  @IsIn(RELEASABLE_CLAIMS, { each: true, message: `each of claims must be one of ${RELEASABLE_CLAIMS.join(', ')}` })
  claims?: string[];
}

export function scopeDefinitionOf(dto: ScopeDto): ScopeDefinition {
  return {
    scopeId: dto.id,
    ...(dto.description !== undefined ? { description: dto.description } : {}),
    restricted: dto.restricted ?? false,
    claims: [...new Set(dto.claims ?? [])],
  };
}

export function scopeRepresentation(s: ScopeView): Record<string, unknown> {
  return {
    id: s.scopeId,
    ...(s.description !== undefined ? { description: s.description } : {}),
    restricted: s.restricted,
    claims: s.claims,
    built_in: s.builtIn,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}
