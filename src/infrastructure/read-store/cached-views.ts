/** Views read on every request (tenants, clients, users; resources, on every proxied one) or right after they were written (sessions, tokens): served from memory. */
export const CACHED_VIEWS: readonly string[] = ['tenants', 'clients', 'users', 'sessions', 'tokens', 'scopes', 'resources'];
