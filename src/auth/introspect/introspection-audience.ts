import type { Directory } from '../../shared/directory.js';

/**
 * Introspection by audience (RFC 7662 §4: the server decides what a caller may learn): an
 * access token is described to the client it was issued to, and to the clients a resource of
 * its audience lists in `introspectionClients` (its resource server); to no other.
 */
export async function mayIntrospect(directory: Directory, tenantId: string, caller: string, token: { clientId: string; audience?: string[] }): Promise<boolean> {
  if (token.clientId === caller) return true;
  for (const aud of token.audience ?? []) {
    const resource = await directory.resourceByIdentifier(tenantId, aud);
    if (resource?.introspectionClients?.includes(caller)) return true;
  }
  return false;
}
