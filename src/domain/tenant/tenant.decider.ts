import { algConflict } from '../security-profile/rules.js';
import { SECURITY_PROFILES } from '../security-profile/profile.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { TenantEvent, TenantSettings } from './tenant.events.js';

/** Paths served at the root of PUBLIC_URL; a tenant id may not shadow them. */
export const RESERVED_TENANT_IDS = new Set([
  'admin', 'api', 'assets', 'configuration', 'health', 'login', 'logout', 'metrics', 'native', 'oauth',
  'permissions', 'resources', 'static', 'users', 'well-known', 'favicon.ico', 'token', 'authorize',
]);
const TENANT_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

export function validateTenantId(id: string): void {
  if (!TENANT_ID.test(id)) throw new DomainError('invalid_value', `tenant id "${id}" must match ${TENANT_ID}`);
  if (RESERVED_TENANT_IDS.has(id)) throw new DomainError('invalid_value', `tenant id "${id}" is reserved by a server route`);
}

export type TenantCommand =
  | { kind: 'CreateTenant'; tenantId: string; settings: TenantSettings }
  /** The tenant's settings as they are to be, whole; whether it is the operator tenant never changes here. */
  | { kind: 'ChangeTenantSettings'; settings: Omit<TenantSettings, 'operator'> }
  | { kind: 'DeleteTenant' };

export function validateSettings(s: Omit<TenantSettings, 'operator'>): void {
  if (!Number.isInteger(s.accessTokenTtl) || s.accessTokenTtl < 1) throw new DomainError('invalid_value', 'access_token_ttl must be a positive integer');
  if (!Number.isInteger(s.refreshTokenTtl) || s.refreshTokenTtl < 1) throw new DomainError('invalid_value', 'refresh_token_ttl must be a positive integer');
  if (s.sessionMaxAge !== undefined && (!Number.isInteger(s.sessionMaxAge) || s.sessionMaxAge < 1)) throw new DomainError('invalid_value', 'session_max_age must be a positive integer');
  if (s.sessionIdleTimeout !== undefined && (!Number.isInteger(s.sessionIdleTimeout) || s.sessionIdleTimeout < 1)) throw new DomainError('invalid_value', 'session_idle_timeout must be a positive integer');
  if (s.keyRotationPeriod !== undefined && (!Number.isInteger(s.keyRotationPeriod) || s.keyRotationPeriod < 3600)) throw new DomainError('invalid_value', 'key_rotation_period must be a whole number of seconds, at least 3600');
  if (!(SECURITY_PROFILES as readonly string[]).includes(s.securityProfile)) throw new DomainError('invalid_value', `security_profile must be one of ${SECURITY_PROFILES.join(', ')}`);
  const conflict = algConflict(s.securityProfile, { signing_alg: s.signingAlg });
  if (conflict) throw new DomainError('invalid_value', conflict);
}

export type TenantState = { exists: false; deleted?: boolean } | ({ exists: true; tenantId: string } & TenantSettings);

export const tenantDecider: Decider<TenantCommand, TenantEvent, TenantState> = {
  initialState: { exists: false },
  decide(command, state) {
    switch (command.kind) {
      case 'CreateTenant': {
        validateTenantId(command.tenantId);
        validateSettings(command.settings);
        // A deleted tenant's id is never given again: its tokens (signed under its issuer) must not come back to life.
        if (state.exists || state.deleted) return [];
        return [{ type: 'TenantCreated', data: { tenantId: command.tenantId, ...command.settings } }];
      }
      case 'ChangeTenantSettings':
        if (!state.exists) throw new DomainError('not_found', 'no such tenant');
        validateSettings(command.settings);
        return [{ type: 'TenantSettingsChanged', data: { tenantId: state.tenantId, ...command.settings } }];
      case 'DeleteTenant':
        if (!state.exists) throw new DomainError('not_found', 'no such tenant');
        if (state.operator) throw new DomainError('invalid_value', 'the operator tenant cannot be deleted');
        return [{ type: 'TenantDeleted', data: { tenantId: state.tenantId } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'TenantCreated':
        return { exists: true, ...event.data };
      case 'TenantSettingsChanged':
        return state.exists ? { exists: true, ...event.data, ...(state.operator ? { operator: true } : {}) } : state;
      case 'TenantDeleted':
        return { exists: false, deleted: true };
      default:
        return assertNever(event);
    }
  },
};
