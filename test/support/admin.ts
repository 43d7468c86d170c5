import type { ContractFetch } from './contract-fetch.js';
import { BOOTSTRAP_YAML, extraTenant, type TestServer } from './server.js';

export const ADMIN_SECRET = 'admin-secret-0123456789-0123456789-abcdefgh';
export const ALL_ADMIN_SCOPES = 'central:read central:write central:audit';

/** An admin client (`admin`, with `scopes`) and a reader (`reader`, central:read) of a tenant, as bootstrap YAML. */
export const adminClients = (scopes = ALL_ADMIN_SCOPES) => `
      - client_id: admin
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "${scopes}"
      - client_id: reader
        client_secret: "${ADMIN_SECRET}"
        grant_types: [client_credentials]
        scope: "central:read"`;

/** BOOTSTRAP_YAML's tenants, acme with the admin clients; beta, like acme's extra tenants, with them too; ops, the operator tenant. */
export const ADMIN_BOOTSTRAP = `${BOOTSTRAP_YAML.replace('    clients:\n', `    clients:${adminClients()}\n`)}${extraTenant('beta', {}, adminClients())}
  - id: ops
    operator: true
    clients:${adminClients()}`;

/** A client_credentials token of `clientId` at `tenant` with `scope`. */
export async function adminToken(server: TestServer, tenant: string, scope = ALL_ADMIN_SCOPES, clientId = 'admin'): Promise<string> {
  const res = await fetch(`${server.issuer(tenant)}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${ADMIN_SECRET}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  if (res.status !== 200) throw new Error(`no admin token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export interface AdminAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * An admin API call through the contract-checking fetch: `path` is `/<tenant>/configuration/...`
 * or a root `/configuration/...` route; a body is sent as JSON (merge-patch JSON for PATCH).
 */
export async function adminCall(server: TestServer, contract: ContractFetch, method: string, path: string, bearer: string | undefined, body?: unknown, headers: Record<string, string> = {}): Promise<AdminAnswer> {
  const url = path.startsWith('/configuration/') ? `${server.baseUrl}${path}` : `${server.issuer(path.split('/')[1])}${path.slice(path.indexOf('/', 1))}`;
  const res = await contract.fetch(url, {
    method,
    headers: {
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(body !== undefined ? { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
