import { ArrayMaxSize, IsArray, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import type { ResourceView } from '../../../projections/resources.projection.js';
import type { ResourceDefinition } from '../../domain/resource/resource.events.js';

/** Ids of resources, permissions and roles: unreserved characters and `:`. */
export const ITEM_ID_PATTERN = /^[A-Za-z0-9._~:-]{1,128}$/;
export const ITEM_ID_MESSAGE = 'must be 1-128 letters, digits or . _ ~ : -';

/** A resource (API) as the admin API takes it. */
export class ResourceDto {
  @IsString()
  @Matches(ITEM_ID_PATTERN, { message: `id ${ITEM_ID_MESSAGE}` })
  id!: string;

  /** The audience of tokens issued for the resource: an absolute URI (RFC 8707 §2). */
  @IsString()
  @Length(1, 2048)
  identifier!: string;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Length(1, 128, { each: true })
  scopes?: string[];

  @IsOptional()
  @IsString()
  @MaxLength(2048)
  upstream_url?: string;
}

export function resourceDefinitionOf(dto: ResourceDto): ResourceDefinition {
  return {
    resourceId: dto.id,
    identifier: dto.identifier,
    scopes: [...new Set(dto.scopes ?? [])],
    ...(dto.name !== undefined ? { name: dto.name } : {}),
    ...(dto.upstream_url !== undefined ? { upstreamUrl: dto.upstream_url } : {}),
  };
}

export function resourceRepresentation(r: ResourceView): Record<string, unknown> {
  return {
    id: r.resourceId,
    identifier: r.identifier,
    ...(r.name !== undefined ? { name: r.name } : {}),
    scopes: r.scopes,
    ...(r.upstreamUrl !== undefined ? { upstream_url: r.upstreamUrl } : {}),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
