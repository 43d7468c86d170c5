/**
 * What the load generator signs for the sender-constrained scenarios: DPoP proofs (RFC 9449)
 * and private_key_jwt client assertions (RFC 7523), ES256 by node:crypto, a fresh jti each.
 */
import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';

export interface SenderKey {
  privateKey: KeyObject;
  publicJwk: Record<string, unknown>;
}

export function newSenderKey(): SenderKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicJwk: publicKey.export({ format: 'jwk' }) as Record<string, unknown> };
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

function es256(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
  const input = `${b64({ alg: 'ES256', ...header })}.${b64(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

/** A DPoP proof for one request. */
export function dpopProof(key: SenderKey, method: string, url: string): string {
  return es256({ typ: 'dpop+jwt', jwk: key.publicJwk }, { htm: method, htu: url, iat: Math.floor(Date.now() / 1000), jti: randomUUID() }, key.privateKey);
}

/** A client assertion of `clientId` for `audience` (the token endpoint's URL), valid for a minute. */
export function clientAssertion(key: KeyObject, clientId: string, audience: string, kid: string): string {
  const now = Math.floor(Date.now() / 1000);
  return es256({ kid, typ: 'JWT' }, { iss: clientId, sub: clientId, aud: audience, iat: now, exp: now + 60, jti: randomUUID() }, key);
}
