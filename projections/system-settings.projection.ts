import type { TenantDefaults } from '../src/domain/system/system-settings.events.js';
import type { Projection } from './projection.js';

/** The deployment's settings: one document, `system`. */
export interface SystemSettingsView {
  tenantDefaults: TenantDefaults;
  updatedAt: string;
  /** The revision of the settings' stream: their ETag in the admin API. */
  revision: number;
}

export const SYSTEM_SETTINGS_ID = 'system';

export const systemSettingsProjection: Projection<SystemSettingsView> = {
  view: 'system_settings',
  version: 1,
  eventTypes: ['SystemSettingsChanged'],
  indexes: [],
  documentId: () => SYSTEM_SETTINGS_ID,
  readsDocument: () => false,
  apply: (_doc, e) => ({ tenantDefaults: e.data.tenantDefaults, updatedAt: e.metadata.occurredAt, revision: e.revision }),
};
