import { assertNever, type Decider } from '../shared/decider.js';
import { validateSettings } from '../tenant/tenant.decider.js';
import type { TenantSettings } from '../tenant/tenant.events.js';
import type { SystemSettingsEvent, TenantDefaults } from './system-settings.events.js';

export type SystemSettingsCommand = { kind: 'ChangeSystemSettings'; tenantDefaults: TenantDefaults; builtIn: Omit<TenantSettings, 'operator'> };

export interface SystemSettingsState {
  tenantDefaults: TenantDefaults;
}

/** Deployment-wide settings (operator only): so far, the defaults new tenants start from. */
export const systemSettingsDecider: Decider<SystemSettingsCommand, SystemSettingsEvent, SystemSettingsState> = {
  initialState: { tenantDefaults: {} },
  decide(command) {
    switch (command.kind) {
      case 'ChangeSystemSettings':
        // The defaults must make valid settings on top of the built-in ones.
        validateSettings({ ...command.builtIn, ...command.tenantDefaults });
        return [{ type: 'SystemSettingsChanged', data: { tenantDefaults: command.tenantDefaults } }];
      default:
        return assertNever(command.kind);
    }
  },
  evolve(_state, event) {
    switch (event.type) {
      case 'SystemSettingsChanged':
        return { tenantDefaults: event.data.tenantDefaults };
      default:
        return assertNever(event.type);
    }
  },
};
