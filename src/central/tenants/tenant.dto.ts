import { IsBoolean, IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { SECURITY_PROFILES } from '../../domain/security-profile/profile.js';
import type { TenantView } from '../../../projections/tenants.projection.js';
import { SIGNING_ALGS, type SecurityProfile, type SigningAlg, type TenantSettings } from '../../domain/tenant/tenant.events.js';
import { DEFAULT_TENANT_SETTINGS } from '../bootstrap/bootstrap-file.js';
import type { TenantDefaults } from '../../domain/system/system-settings.events.js';

const YEAR = 366 * 24 * 3600;

/** A tenant's settings as the admin API takes them (the bootstrap file's names). */
export class TenantSettingsDto {
  @IsOptional()
  @IsIn(SECURITY_PROFILES)
  security_profile?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(24 * 3600)
  access_token_ttl?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(YEAR)
  refresh_token_ttl?: number;

  @IsOptional()
  @IsIn(SIGNING_ALGS)
  signing_alg?: string;

  @IsOptional()
  @IsBoolean()
  refresh_without_offline_access?: boolean;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(YEAR)
  session_max_age?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(YEAR)
  session_idle_timeout?: number;

  @IsOptional()
  @IsInt()
  @Min(3600)
  @Max(YEAR)
  key_rotation_period?: number;

  @IsOptional()
  @IsBoolean()
  registration_enabled?: boolean;

  // DPoP (RFC 9449 §8)
  @IsOptional()
  @IsBoolean()
  dpop_nonce_required?: boolean;

  // PAR (RFC 9126 §5):
  @IsOptional()
  @IsBoolean()
  require_pushed_authorization_requests?: boolean;
}

/** A new tenant: its id and settings. */
export class TenantDto extends TenantSettingsDto {
  @Matches(/^[a-z0-9][a-z0-9-]{0,62}$/, { message: 'id must be lower-case letters, digits and dashes, 1-63 characters, not starting with a dash' })
  id!: string;
}

/** Only the settings the DTO names, as the domain has them (the system settings' tenant defaults). */
export function namedSettingsOf(dto: TenantSettingsDto): TenantDefaults {
  const all = settingsOf(dto);
  const named: Record<string, unknown> = {};
  for (const [wire, field] of WIRE_NAMES) if ((dto as Record<string, unknown>)[wire] !== undefined) named[field] = (all as Record<string, unknown>)[field];
  return named as TenantDefaults;
}

/** Tenant defaults as the admin API shows them (the settings' wire names). */
export function namedSettingsRepresentation(d: TenantDefaults): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [wire, field] of WIRE_NAMES) if ((d as Record<string, unknown>)[field] !== undefined) out[wire] = (d as Record<string, unknown>)[field];
  return out;
}

const WIRE_NAMES: ReadonlyArray<[keyof TenantSettingsDto, keyof TenantDefaults]> = [
  ['security_profile', 'securityProfile'],
  ['access_token_ttl', 'accessTokenTtl'],
  ['refresh_token_ttl', 'refreshTokenTtl'],
  ['signing_alg', 'signingAlg'],
  ['refresh_without_offline_access', 'refreshWithoutOfflineAccess'],
  ['session_max_age', 'sessionMaxAge'],
  ['session_idle_timeout', 'sessionIdleTimeout'],
  ['key_rotation_period', 'keyRotationPeriod'],
  ['registration_enabled', 'registrationEnabled'],
  ['dpop_nonce_required', 'dpopNonceRequired'],
  ['require_pushed_authorization_requests', 'requirePushedAuthorizationRequests'],
];

/**
 * Settings as the domain has them: what the DTO names, then the deployment's tenant defaults
 * (system settings), then the built-in defaults.
 */
export function settingsOf(dto: TenantSettingsDto, defaults: TenantDefaults = {}): Omit<TenantSettings, 'operator'> {
  const d = { ...DEFAULT_TENANT_SETTINGS, ...defaults };
  return {
    securityProfile: (dto.security_profile ?? d.securityProfile) as SecurityProfile,
    accessTokenTtl: dto.access_token_ttl ?? d.accessTokenTtl,
    refreshTokenTtl: dto.refresh_token_ttl ?? d.refreshTokenTtl,
    signingAlg: (dto.signing_alg ?? d.signingAlg) as SigningAlg,
    refreshWithoutOfflineAccess: dto.refresh_without_offline_access ?? d.refreshWithoutOfflineAccess,
    sessionMaxAge: dto.session_max_age ?? d.sessionMaxAge,
    sessionIdleTimeout: dto.session_idle_timeout ?? d.sessionIdleTimeout,
    ...((dto.key_rotation_period ?? d.keyRotationPeriod) !== undefined ? { keyRotationPeriod: dto.key_rotation_period ?? d.keyRotationPeriod } : {}),
    ...((dto.registration_enabled ?? d.registrationEnabled) ? { registrationEnabled: true } : {}),
    ...((dto.dpop_nonce_required ?? d.dpopNonceRequired) ? { dpopNonceRequired: true } : {}),
    ...((dto.require_pushed_authorization_requests ?? d.requirePushedAuthorizationRequests) ? { requirePushedAuthorizationRequests: true } : {}),
  };
}

/** The settings of a tenant as the admin API shows them. */
export function settingsRepresentation(t: TenantView): Record<string, unknown> {
  return {
    security_profile: t.securityProfile,
    access_token_ttl: t.accessTokenTtl,
    refresh_token_ttl: t.refreshTokenTtl,
    signing_alg: t.signingAlg,
    refresh_without_offline_access: t.refreshWithoutOfflineAccess,
    session_max_age: t.sessionMaxAge,
    session_idle_timeout: t.sessionIdleTimeout,
    ...(t.keyRotationPeriod !== undefined ? { key_rotation_period: t.keyRotationPeriod } : {}),
    registration_enabled: t.registrationEnabled ?? false,
    dpop_nonce_required: t.dpopNonceRequired ?? false,
    require_pushed_authorization_requests: t.requirePushedAuthorizationRequests ?? false,
  };
}

export function tenantRepresentation(t: TenantView): Record<string, unknown> {
  return { id: t.tenantId, ...settingsRepresentation(t), operator: t.operator, created_at: t.createdAt, updated_at: t.updatedAt ?? t.createdAt };
}
