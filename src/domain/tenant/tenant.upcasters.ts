import type { SecurityProfile } from './tenant.events.js';

/**
 * TenantCreated and TenantSettingsChanged version 1 → 2: the profile `strict` (which asked
 * only for PKCE S256) is gone. It becomes `fapi2-security`, the profile that is at least as
 * strict: a tenant that chose the stricter setting never silently accepts more (PKCE `plain`)
 * after an upgrade; what it now refuses beyond S256 is answered with errors that name the rule.
 */
export function tenantSettingsV1ToV2(data: Record<string, unknown>): unknown {
  if (data.securityProfile !== 'strict') return data;
  const securityProfile: SecurityProfile = 'fapi2-security';
  return { ...data, securityProfile };
}

/** SystemSettingsChanged version 1 → 2: the same, for the profile new tenants get by default. */
export function systemSettingsV1ToV2(data: Record<string, unknown>): unknown {
  const defaults = data.tenantDefaults as Record<string, unknown> | undefined;
  if (!defaults || defaults.securityProfile !== 'strict') return data;
  return { ...data, tenantDefaults: tenantSettingsV1ToV2(defaults) };
}
