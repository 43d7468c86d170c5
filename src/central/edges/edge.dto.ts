import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import type { EdgeCertificateView } from '../../../projections/edge-certificates.projection.js';
import type { EdgeView } from '../../../projections/edges.projection.js';
import type { EdgeDefinition } from '../../domain/edge-instance/edge-instance.events.js';
import { ITEM_ID_MESSAGE, ITEM_ID_PATTERN } from '../resources/resource.dto.js';

/** A registered traffic-plane instance as the admin API takes it. */
export class EdgeDto {
  @IsString()
  @Matches(ITEM_ID_PATTERN, { message: `id ${ITEM_ID_MESSAGE}` })
  id!: string;

  @IsString()
  @Length(1, 200)
  name!: string;

  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 255, { each: true })
  allowed_hosts?: string[];

  @IsOptional()
  @IsIn(['active', 'disabled'])
  status?: 'active' | 'disabled';
}

/** What an edge sends to get its client certificate. */
export class EdgeCertificateRequestDto {
  @IsString()
  @Matches(ITEM_ID_PATTERN, { message: `edge_id ${ITEM_ID_MESSAGE}` })
  edge_id!: string;

  /** A PEM PKCS#10 certificate signing request. */
  @IsString()
  @Length(1, 16_384)
  csr!: string;
}

export function edgeDefinitionOf(dto: EdgeDto): EdgeDefinition {
  return {
    edgeId: dto.id,
    name: dto.name,
    ...(dto.description !== undefined ? { description: dto.description } : {}),
    allowedHosts: [...new Set(dto.allowed_hosts ?? [])],
    status: dto.status ?? 'active',
  };
}

export function edgeRepresentation(e: EdgeView): Record<string, unknown> {
  return {
    id: e.edgeId,
    name: e.name,
    ...(e.description !== undefined ? { description: e.description } : {}),
    allowed_hosts: e.allowedHosts,
    status: e.status,
    ...(e.certificate
      ? { certificate: { serial: e.certificate.serial, 'x5t#S256': e.certificate.thumbprint, not_before: e.certificate.notBefore, not_after: e.certificate.notAfter } }
      : {}),
    ...(e.lastRenewal !== undefined ? { last_renewal: e.lastRenewal } : {}),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

export function edgeCertificateRepresentation(c: EdgeCertificateView): Record<string, unknown> {
  return {
    serial: c.serial,
    edge_id: c.edgeId,
    'x5t#S256': c.thumbprint,
    not_before: c.notBefore,
    not_after: c.notAfter,
    status: c.status,
    ...(c.endedAt !== undefined ? { ended_at: c.endedAt } : {}),
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
  };
}
