import type { ClientCreated } from './client.events.js';

type ClientCreatedData = ClientCreated['data'];

/**
 * ClientCreated version 1 → 2: the bare `secretHash: 'sha256:<base64url>'` becomes a digest
 * that names its scheme. A SHA-256 cannot be turned into the keyed hash without the secret,
 * so it stays one, and is verified as one.
 */
export function clientCreatedV1ToV2(data: Record<string, unknown>): ClientCreatedData {
  const { secretHash, ...rest } = data;
  if (typeof secretHash !== 'string') return rest as unknown as ClientCreatedData;
  // Only `sha256:` was ever written; anything else is kept whole, where it matches no secret.
  const hash = secretHash.startsWith('sha256:') ? secretHash.slice('sha256:'.length) : secretHash;
  return { ...rest, secretDigest: { scheme: 'sha256', hash } } as unknown as ClientCreatedData;
}
