import { ITEM_ID } from '../resource/resource.decider.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { RoleDefinition, RoleEvent } from './role.events.js';

export type RoleCommand =
  /** `missingPermissions`: those of the definition not found on their streams when the command was built. */
  | { kind: 'CreateRole'; tenantId: string; definition: RoleDefinition; missingPermissions: string[] }
  | { kind: 'UpdateRole'; definition: RoleDefinition; missingPermissions: string[] }
  | { kind: 'DeleteRole' };

export interface RoleState {
  tenantId?: string;
  definition?: RoleDefinition;
}

function validate(d: RoleDefinition, missing: readonly string[]): void {
  if (!ITEM_ID.test(d.roleId)) throw new DomainError('invalid_value', `role ${d.roleId}: id must be 1-128 unreserved characters or ":"`);
  if (missing.length) throw new DomainError('invalid_value', `role ${d.roleId}: no permission ${missing.join(', ')}`);
}

export const roleDecider: Decider<RoleCommand, RoleEvent, RoleState> = {
  initialState: {},
  decide(command, state) {
    switch (command.kind) {
      case 'CreateRole':
        validate(command.definition, command.missingPermissions);
        if (state.definition) throw new DomainError('already_exists', `a role ${command.definition.roleId} exists`);
        return [{ type: 'RoleCreated', data: { tenantId: command.tenantId, ...command.definition } }];
      case 'UpdateRole':
        if (!state.definition || !state.tenantId) throw new DomainError('not_found', 'no such role');
        validate(command.definition, command.missingPermissions);
        return [{ type: 'RoleUpdated', data: { tenantId: state.tenantId, ...command.definition } }];
      case 'DeleteRole':
        if (!state.definition || !state.tenantId) throw new DomainError('not_found', 'no such role');
        return [{ type: 'RoleDeleted', data: { tenantId: state.tenantId, roleId: state.definition.roleId } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'RoleCreated':
      case 'RoleUpdated': {
        const { tenantId, ...definition } = event.data;
        return { tenantId, definition };
      }
      case 'RoleDeleted':
        return { tenantId: state.tenantId };
      default:
        return assertNever(event);
    }
  },
};
