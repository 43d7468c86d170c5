import type { PermissionDefinition } from '../../domain/permission/permission.events.js';
import type { ResourceDefinition } from '../../domain/resource/resource.events.js';
import type { RoleDefinition } from '../../domain/role/role.events.js';

/** The checks of the bootstrap file's reader that the access items use. */
export interface FieldReader {
  object(v: unknown, path: string): Record<string, unknown>;
  array(v: unknown, path: string): unknown[];
  only(node: Record<string, unknown>, path: string, keys: string[]): void;
  string(v: unknown, path: string): string;
  optionalString(v: unknown, path: string): string | undefined;
  strings(v: unknown, path: string, fallback?: string[]): string[];
}

/** A tenant's resources, permissions and roles in the bootstrap file (snake_case, as in the admin API). */
export interface BootstrapAccess {
  resources?: ResourceDefinition[];
  permissions?: PermissionDefinition[];
  roles?: RoleDefinition[];
}

export const ACCESS_FIELDS = ['resources', 'permissions', 'roles'];

/** The shapes only: ids, references and the identifier's form are checked as the admin API checks them, when applied. */
export function readAccess(r: FieldReader, n: Record<string, unknown>, path: string): BootstrapAccess {
  const access: BootstrapAccess = {};
  if (n.resources !== undefined) {
    access.resources = r.array(n.resources, `${path}.resources`).map((v, i) => {
      const at = `${path}.resources[${i}]`;
      const o = r.object(v, at);
      r.only(o, at, ['id', 'identifier', 'name', 'scopes', 'upstream_url', 'introspection_clients']);
      const name = r.optionalString(o.name, `${at}.name`);
      const upstreamUrl = r.optionalString(o.upstream_url, `${at}.upstream_url`);
      return {
        resourceId: r.string(o.id, `${at}.id`),
        identifier: r.string(o.identifier, `${at}.identifier`),
        scopes: r.strings(o.scopes, `${at}.scopes`),
        ...(name !== undefined ? { name } : {}),
        ...(upstreamUrl !== undefined ? { upstreamUrl } : {}),
        // Resource indicators: the resource server's clients that may introspect its tokens.
        ...(o.introspection_clients !== undefined ? { introspectionClients: r.strings(o.introspection_clients, `${at}.introspection_clients`) } : {}),
      };
    });
  }
  if (n.permissions !== undefined) {
    access.permissions = r.array(n.permissions, `${path}.permissions`).map((v, i) => {
      const at = `${path}.permissions[${i}]`;
      const o = r.object(v, at);
      r.only(o, at, ['id', 'resource', 'description']);
      const description = r.optionalString(o.description, `${at}.description`);
      return { permissionId: r.string(o.id, `${at}.id`), resource: r.string(o.resource, `${at}.resource`), ...(description !== undefined ? { description } : {}) };
    });
  }
  if (n.roles !== undefined) {
    access.roles = r.array(n.roles, `${path}.roles`).map((v, i) => {
      const at = `${path}.roles[${i}]`;
      const o = r.object(v, at);
      r.only(o, at, ['id', 'name', 'permissions']);
      const name = r.optionalString(o.name, `${at}.name`);
      return { roleId: r.string(o.id, `${at}.id`), permissions: r.strings(o.permissions, `${at}.permissions`), ...(name !== undefined ? { name } : {}) };
    });
  }
  return access;
}
