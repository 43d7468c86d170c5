import type { AdminScope } from '../../auth/scopes.js';

/** Who calls the admin API: the tenant and client its token was issued by and to, its subject and scopes. */
export interface AdminPrincipal {
  tenantId: string;
  /** The token's tenant is the operator tenant: it may act on every tenant. */
  operator: boolean;
  sub: string;
  clientId: string;
  userId?: string;
  scopes: readonly string[];
}

/** The actor events record for a change made through the admin API. */
export function actorOf(p: AdminPrincipal): string {
  return p.userId ? `user:${p.userId}` : `client:${p.clientId}`;
}

export type { AdminScope };
