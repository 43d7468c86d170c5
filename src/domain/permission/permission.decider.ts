import { ADMIN_SCOPES } from '../../auth/scopes.js';
import { CENTRAL_RESOURCE, ITEM_ID } from '../resource/resource.decider.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-error.js';
import type { PermissionDefinition, PermissionEvent } from './permission.events.js';

export type PermissionCommand =
  /** `resourceExists`: whether the resource named was found on its stream when the command was built. */
  | { kind: 'CreatePermission'; tenantId: string; definition: PermissionDefinition; resourceExists: boolean }
  | { kind: 'UpdatePermission'; definition: PermissionDefinition }
  | { kind: 'DeletePermission' };

export interface PermissionState {
  tenantId?: string;
  definition?: PermissionDefinition;
}

/**
 * The admin scopes are permissions of the built-in resource `central`, and only they: a
 * permission named `central:read` grants that scope to the holders of its roles, so no other
 * resource may carry such a name, nor `central` another one.
 */
function validate(d: PermissionDefinition): void {
  const fail = (m: string): never => {
    throw new DomainError('invalid_value', `permission ${d.permissionId}: ${m}`);
  };
  if (!ITEM_ID.test(d.permissionId)) fail('id must be 1-128 unreserved characters or ":"');
  const adminScope = (ADMIN_SCOPES as readonly string[]).includes(d.permissionId);
  if (d.resource === CENTRAL_RESOURCE && !adminScope) fail(`the resource ${CENTRAL_RESOURCE} has only the permissions ${ADMIN_SCOPES.join(', ')}`);
  if (d.resource !== CENTRAL_RESOURCE && d.permissionId.startsWith(`${CENTRAL_RESOURCE}:`)) fail(`a permission named ${CENTRAL_RESOURCE}:* is on the resource ${CENTRAL_RESOURCE}`);
}

export const permissionDecider: Decider<PermissionCommand, PermissionEvent, PermissionState> = {
  initialState: {},
  decide(command, state) {
    switch (command.kind) {
      case 'CreatePermission':
        validate(command.definition);
        if (command.definition.resource !== CENTRAL_RESOURCE && !command.resourceExists) throw new DomainError('invalid_value', `no resource ${command.definition.resource}`);
        if (state.definition) throw new DomainError('already_exists', `a permission ${command.definition.permissionId} exists`);
        return [{ type: 'PermissionCreated', data: { tenantId: command.tenantId, ...command.definition } }];
      case 'UpdatePermission':
        if (!state.definition || !state.tenantId) throw new DomainError('not_found', 'no such permission');
        if (command.definition.resource !== state.definition.resource) throw new DomainError('invalid_value', 'resource cannot change');
        validate(command.definition);
        return [{ type: 'PermissionUpdated', data: { tenantId: state.tenantId, ...command.definition } }];
      case 'DeletePermission':
        if (!state.definition || !state.tenantId) throw new DomainError('not_found', 'no such permission');
        return [{ type: 'PermissionDeleted', data: { tenantId: state.tenantId, permissionId: state.definition.permissionId, resource: state.definition.resource } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'PermissionCreated':
      case 'PermissionUpdated': {
        const { tenantId, ...definition } = event.data;
        return { tenantId, definition };
      }
      case 'PermissionDeleted':
        return { tenantId: state.tenantId };
      default:
        return assertNever(event);
    }
  },
};
