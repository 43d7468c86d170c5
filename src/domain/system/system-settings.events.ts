import type { DomainEvent } from '../shared/decider.js';
import type { TenantSettings } from '../tenant/tenant.events.js';

/** The settings a new tenant starts from where its creation names none, as they are from now on, whole. */
export type TenantDefaults = Partial<Omit<TenantSettings, 'operator'>>;

export type SystemSettingsChanged = DomainEvent<'SystemSettingsChanged', { tenantDefaults: TenantDefaults }>;
export type SystemSettingsEvent = SystemSettingsChanged;
