import type { PermissionDefinition } from '../../domain/permission/permission.events.js';
import { MAX_ROUTES, type ResourceRoute, routesFault } from '../../domain/resource/resource-routes.js';
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
  bool(v: unknown, path: string, fallback: boolean): boolean;
  fail(path: string, problem: string): never;
}

/** A tenant's resources, permissions and roles in the bootstrap file (snake_case, as in the admin API). */
export interface BootstrapAccess {
  resources?: ResourceDefinition[];
  permissions?: PermissionDefinition[];
  roles?: RoleDefinition[];
}

export const ACCESS_FIELDS = ['resources', 'permissions', 'roles'];

/**
 * The shapes, and a resource's routes as the admin API checks them (before anything is
 * applied); ids, references and the identifier's form are checked as the admin API checks
 * them, when applied.
 */
export function readAccess(r: FieldReader, n: Record<string, unknown>, path: string): BootstrapAccess {
  const access: BootstrapAccess = {};
  if (n.resources !== undefined) {
    access.resources = r.array(n.resources, `${path}.resources`).map((v, i) => {
      const at = `${path}.resources[${i}]`;
      const o = r.object(v, at);
      r.only(o, at, ['id', 'identifier', 'name', 'scopes', 'upstream_url', 'introspection_clients', ...PROXY_FIELDS]);
      const name = r.optionalString(o.name, `${at}.name`);
      const upstreamUrl = r.optionalString(o.upstream_url, `${at}.upstream_url`);
      return {
        ...readProxyFields(r, o, at),
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

/** Edge proxy: the fields of a resource that say what the proxy forwards and how. */
const PROXY_FIELDS = ['routes', 'identity_header', 'forward_token'];

function readProxyFields(r: FieldReader, o: Record<string, unknown>, at: string): Pick<ResourceDefinition, 'routes' | 'identityHeader' | 'forwardToken'> {
  const identityHeader = r.optionalString(o.identity_header, `${at}.identity_header`);
  const fields: Pick<ResourceDefinition, 'routes' | 'identityHeader' | 'forwardToken'> = {
    ...(o.routes !== undefined ? { routes: r.array(o.routes, `${at}.routes`).map((v, i) => readRoute(r, v, `${at}.routes[${i}]`)) } : {}),
    ...(identityHeader !== undefined ? { identityHeader } : {}),
    ...(o.forward_token !== undefined ? { forwardToken: r.bool(o.forward_token, `${at}.forward_token`, false) } : {}),
  };
  if ((fields.routes?.length ?? 0) > MAX_ROUTES) r.fail(`${at}.routes`, `at most ${MAX_ROUTES} routes`);
  // The resource decider's own check, so that the file names the field and fails before anything is applied.
  const fault = routesFault(fields.routes ?? [], identityHeader);
  if (fault) {
    const [field, ...problem] = fault.split(' ');
    r.fail(`${at}.${field}`, problem.join(' '));
  }
  return fields;
}

/** One route as the admin API takes it: `methods`, `path`, and `permissions` or `public: true`. */
function readRoute(r: FieldReader, v: unknown, at: string): ResourceRoute {
  const o = r.object(v, at);
  r.only(o, at, ['methods', 'path', 'permissions', 'public']);
  const methods = r.strings(o.methods, `${at}.methods`);
  if (methods.length === 0) r.fail(`${at}.methods`, 'must list one or more methods');
  const isPublic = r.bool(o.public, `${at}.public`, false);
  return { methods: [...new Set(methods)], path: r.string(o.path, `${at}.path`), permissions: [...new Set(r.strings(o.permissions, `${at}.permissions`))], ...(isPublic ? { public: true } : {}) };
}
