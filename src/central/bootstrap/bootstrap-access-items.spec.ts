import type { CommandBus } from '@nestjs/cqrs';
import type { ReadStore } from '../../infrastructure/read-store/read-store.port.js';
import { BootstrapAccessItems } from './bootstrap-access-items.js';

/** A read store holding `docs` by view and id, and a command bus that records what it is sent. */
function items(docs: Record<string, Record<string, object>>) {
  const sent: unknown[] = [];
  const commands = { execute: async (c: unknown) => void sent.push(c) } as unknown as CommandBus;
  const reads = { get: async (view: string, id: string) => docs[view]?.[id] ?? null } as unknown as ReadStore;
  return { sent, access: new BootstrapAccessItems(commands, reads, { tenantId: 'acme', actor: 'system:bootstrap' }) };
}

describe('bootstrap: resources, permissions, roles and users\' roles', () => {
  it('creates what is missing and leaves what exists, naming the fields the file asks otherwise', async () => {
    const { sent, access } = items({
      resources: { 'acme/api': { resourceId: 'api', identifier: 'https://api.example.com', scopes: ['a'] } },
      roles: { 'acme/admin': { roleId: 'admin', permissions: ['central:read'] } },
    });
    expect(await access.resource({ resourceId: 'api', identifier: 'https://api.example.com', scopes: ['a', 'b'] })).toEqual({ created: false, unapplied: ['scopes'] });
    expect(await access.role({ roleId: 'admin', permissions: ['central:read'] })).toEqual({ created: false, unapplied: [] });
    expect(sent).toEqual([]);
    expect(await access.permission({ permissionId: 'central:read', resource: 'central' })).toEqual({ created: true });
    expect(sent).toHaveLength(1);
  });

  it('names the routes, identity header and token forwarding of an existing resource when the file asks otherwise', async () => {
    const route = { methods: ['GET'], path: '/a', permissions: [] };
    const { sent, access } = items({ resources: { 'acme/api': { resourceId: 'api', identifier: 'https://api.example.com', scopes: [], routes: [route] } } });
    const same = { resourceId: 'api', identifier: 'https://api.example.com', scopes: [], routes: [route] };
    expect(await access.resource(same)).toEqual({ created: false, unapplied: [] });
    const asked = { ...same, routes: [{ ...route, path: '/b' }], identityHeader: 'x-caller', forwardToken: true };
    expect(await access.resource(asked)).toEqual({ created: false, unapplied: ['routes', 'identity_header', 'forward_token'] });
    expect(sent).toEqual([]);
  });

  it('gives roles to a user it has just created only; an existing user keeps the roles the admins left, and the missing ones are named', async () => {
    const { sent, access } = items({ users: { 'acme/u1': { userId: 'u1', roles: ['viewer'] } } });
    expect(await access.userRoles('u1', ['viewer', 'admin'], false)).toEqual({ created: false, unapplied: ['roles (admin)'] });
    expect(sent).toEqual([]);
    await access.userRoles('u2', ['admin'], true);
    expect(sent).toEqual([expect.objectContaining({ holder: { kind: 'user', userId: 'u2' }, roleId: 'admin', assign: true })]);
  });
});
