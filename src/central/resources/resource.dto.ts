import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsOptional, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import type { ResourceView } from '../../../projections/resources.projection.js';
import { MAX_ROUTES, type ResourceRoute } from '../../domain/resource/resource-routes.js';
import type { ResourceDefinition } from '../../domain/resource/resource.events.js';

/** Ids of resources, permissions and roles: unreserved characters and `:`. */
export const ITEM_ID_PATTERN = /^[A-Za-z0-9._~:-]{1,128}$/;
export const ITEM_ID_MESSAGE = 'must be 1-128 letters, digits or . _ ~ : -';

/** One route of the edge's proxy: methods and path pattern, and the permissions it needs or `public`. */
export class ResourceRouteDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(8)
  @IsString({ each: true })
  @Matches(/^(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|\*)$/, { each: true, message: 'each method must be GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS or *' })
  methods!: string[];

  @IsString()
  @Length(1, 1024)
  path!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Matches(ITEM_ID_PATTERN, { each: true, message: `each permission ${ITEM_ID_MESSAGE}` })
  permissions?: string[];

  @IsOptional()
  @IsBoolean()
  public?: boolean;
}

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

  // Edge proxy: routes and what the upstream gets.
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ROUTES)
  @ValidateNested({ each: true })
  @Type(() => ResourceRouteDto)
  routes?: ResourceRouteDto[];

  @IsOptional()
  @IsString()
  @Length(1, 64)
  identity_header?: string;

  @IsOptional()
  @IsBoolean()
  forward_token?: boolean;

  /** Introspection by audience: the client ids that may introspect tokens for this resource. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 255, { each: true })
  introspection_clients?: string[];
}

function routeOf(r: ResourceRouteDto): ResourceRoute {
  return { methods: [...new Set(r.methods)], path: r.path, permissions: [...new Set(r.permissions ?? [])], ...(r.public ? { public: true } : {}) };
}

function routeRepresentation(r: ResourceRoute): Record<string, unknown> {
  return { methods: r.methods, path: r.path, permissions: r.permissions, ...(r.public ? { public: true } : {}) };
}

export function resourceDefinitionOf(dto: ResourceDto): ResourceDefinition {
  return {
    resourceId: dto.id,
    identifier: dto.identifier,
    scopes: [...new Set(dto.scopes ?? [])],
    ...(dto.name !== undefined ? { name: dto.name } : {}),
    ...(dto.upstream_url !== undefined ? { upstreamUrl: dto.upstream_url } : {}),
    ...(dto.routes !== undefined ? { routes: dto.routes.map(routeOf) } : {}),
    ...(dto.identity_header !== undefined ? { identityHeader: dto.identity_header } : {}),
    ...(dto.forward_token !== undefined ? { forwardToken: dto.forward_token } : {}),
    ...(dto.introspection_clients !== undefined ? { introspectionClients: [...new Set(dto.introspection_clients)] } : {}),
  };
}

export function resourceRepresentation(r: ResourceView): Record<string, unknown> {
  return {
    id: r.resourceId,
    identifier: r.identifier,
    ...(r.name !== undefined ? { name: r.name } : {}),
    scopes: r.scopes,
    ...(r.upstreamUrl !== undefined ? { upstream_url: r.upstreamUrl } : {}),
    ...(r.routes !== undefined ? { routes: r.routes.map(routeRepresentation) } : {}),
    ...(r.identityHeader !== undefined ? { identity_header: r.identityHeader } : {}),
    ...(r.forwardToken !== undefined ? { forward_token: r.forwardToken } : {}),
    ...(r.introspectionClients !== undefined ? { introspection_clients: r.introspectionClients } : {}),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
