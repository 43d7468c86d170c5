import { permissionDecider } from '../permission/permission.decider.js';
import { resourceDecider } from '../resource/resource.decider.js';
import { fold } from '../shared/decider.js';
import { userDecider } from '../user/user.decider.js';
import type { UserEvent } from '../user/user.events.js';
import { roleDecider } from './role.decider.js';

const api = { resourceId: 'invoices', identifier: 'https://api.example.com/invoices', scopes: ['invoices:read'] };

describe('resource decider', () => {
  it('claims an identifier for one resource for good', () => {
    const reserve = (resourceId: string) => ({ kind: 'ReserveIdentifier' as const, tenantId: 't', identifier: api.identifier, resourceId });
    const events = resourceDecider.decide(reserve('invoices'), resourceDecider.initialState);
    expect(events).toEqual([{ type: 'ResourceIdentifierReserved', data: { tenantId: 't', identifier: api.identifier, resourceId: 'invoices' } }]);
    const reserved = fold(resourceDecider, events);
    expect(resourceDecider.decide(reserve('invoices'), reserved)).toEqual([]);
    expect(() => resourceDecider.decide(reserve('other'), reserved)).toThrow(/belongs, or belonged, to resource invoices/);
  });

  it('refuses a relative identifier, the built-in id, and a changed identifier', () => {
    const create = (d: typeof api) => resourceDecider.decide({ kind: 'CreateResource', tenantId: 't', definition: d }, resourceDecider.initialState);
    expect(() => create({ ...api, identifier: '/invoices' })).toThrow(/absolute URI/);
    expect(() => create({ ...api, identifier: 'https://api.example.com/#x' })).toThrow(/without a fragment/);
    expect(() => create({ ...api, resourceId: 'central' })).toThrow(/built-in/);
    const created = fold(resourceDecider, create(api));
    expect(() => resourceDecider.decide({ kind: 'UpdateResource', definition: { ...api, identifier: 'https://other.example.com' } }, created)).toThrow(/cannot change/);
  });
});

describe('permission decider', () => {
  const create = (permissionId: string, resource: string, resourceExists = true) =>
    permissionDecider.decide({ kind: 'CreatePermission', tenantId: 't', definition: { permissionId, resource }, resourceExists }, permissionDecider.initialState);

  it('keeps the admin scopes on the built-in resource central, and only them', () => {
    expect(create('central:read', 'central', false)).toEqual([{ type: 'PermissionCreated', data: { tenantId: 't', permissionId: 'central:read', resource: 'central' } }]);
    expect(() => create('central:read', 'invoices')).toThrow(/is on the resource central/);
    expect(() => create('central:everything', 'central')).toThrow(/has only the permissions/);
    expect(() => create('invoices:approve', 'central')).toThrow(/has only the permissions/);
  });

  it('needs its resource to exist', () => {
    expect(() => create('invoices:approve', 'invoices', false)).toThrow(/no resource invoices/);
    expect(create('invoices:approve', 'invoices')).toHaveLength(1);
  });
});

describe('role decider', () => {
  it('refuses permissions that do not exist, and a second role of the same id', () => {
    const definition = { roleId: 'admin', permissions: ['central:read'] };
    expect(() => roleDecider.decide({ kind: 'CreateRole', tenantId: 't', definition, missingPermissions: ['central:read'] }, roleDecider.initialState)).toThrow(/no permission central:read/);
    const created = fold(roleDecider, roleDecider.decide({ kind: 'CreateRole', tenantId: 't', definition, missingPermissions: [] }, roleDecider.initialState));
    expect(() => roleDecider.decide({ kind: 'CreateRole', tenantId: 't', definition, missingPermissions: [] }, created)).toThrow(/exists/);
  });
});

describe('user decider: roles', () => {
  const created: UserEvent = { type: 'UserCreated', data: { tenantId: 't', userId: 'u', username: 'alice', passwordHash: 'scrypt$...', claims: {}, createdAt: '2026-01-01T00:00:00.000Z' } };
  const assigned: UserEvent = { type: 'RoleAssigned', data: { tenantId: 't', userId: 'u', roleId: 'admin' } };

  it('assigns an existing role once, unassigns a held one, and takes every role away with the user', () => {
    const state = fold(userDecider, [created]);
    expect(() => userDecider.decide({ kind: 'AssignRole', roleId: 'admin', roleExists: false }, state)).toThrow(/no role admin/);
    expect(userDecider.decide({ kind: 'AssignRole', roleId: 'admin', roleExists: true }, state)).toEqual([assigned]);
    const holding = fold(userDecider, [created, assigned]);
    expect(holding.roles).toEqual(['admin']);
    expect(userDecider.decide({ kind: 'AssignRole', roleId: 'admin', roleExists: true }, holding)).toEqual([]);
    expect(() => userDecider.decide({ kind: 'UnassignRole', roleId: 'other' }, holding)).toThrow(/does not hold/);
    expect(userDecider.decide({ kind: 'DeleteUser' }, holding)).toEqual([
      { type: 'RoleUnassigned', data: { tenantId: 't', userId: 'u', roleId: 'admin' } },
      { type: 'UserDeleted', data: { tenantId: 't', userId: 'u', username: 'alice' } },
    ]);
  });
});
