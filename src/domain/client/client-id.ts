/**
 * Ids no client may take: the segments of admin routes under `/configuration/clients/` that
 * are not a client id (a client so named would be shadowed by them: `edge-certificate`,
 * `edge-certificate/renew`, `edge-certificate/ca`), and the dot-segments a URL resolves away
 * (RFC 3986 §5.2.4), which no path could address. openapi/central.yaml lists the routes; a
 * test keeps the two in step.
 */
export const RESERVED_CLIENT_IDS: readonly string[] = ['edge-certificate', '.', '..'];

/** What is wrong with `clientId` being reserved, or undefined. */
export function reservedClientIdFault(clientId: string): string | undefined {
  return RESERVED_CLIENT_IDS.includes(clientId) ? `client_id ${clientId} is reserved (it is a route of the admin API under /configuration/clients/, or a dot-segment)` : undefined;
}
