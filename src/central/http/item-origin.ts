import type { FastifyRequest } from 'fastify';
import { originOf } from '../../shared/request-origin.js';
import { actorOf, type AdminPrincipal } from '../auth/admin-principal.js';
import type { CommandOrigin } from '../command-path.js';

/** The origin of an admin change: the tenant, the caller as actor, the request, and the `If-Match` revision when one was named. */
export function commandOrigin(tenantId: string, p: AdminPrincipal, req: FastifyRequest, expectedRevision?: number): CommandOrigin {
  return { tenantId, actor: actorOf(p), origin: originOf(req), ...(expectedRevision !== undefined ? { expectedRevision } : {}) };
}

/** A list's filter: one string of at most `max` characters, or undefined when absent. */
export function stringFilter(query: unknown, name: string, max: number, fail: (detail: string) => Error): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > max) throw fail(`${name} must be one string of 1 to ${max} characters`);
  return value;
}
