import { createHmac, randomBytes } from 'node:crypto';
import type { KeyEncryption } from '../infrastructure/crypto/key-encryption.js';

/** The prefix of a Standard Webhooks secret; what follows is the base64 of the key's bytes. */
const SECRET_PREFIX = 'whsec_';

/** A new subscription's secret: 32 random bytes (Standard Webhooks: between 24 and 64), shown once. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The key a secret stands for: the bytes of its base64 part (the prefix is not part of the key). */
function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('not a webhook secret');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/**
 * The headers of one delivery (Standard Webhooks, "Signature scheme"): `webhook-id` (the same
 * on every attempt of one message, so the receiver can drop duplicates), `webhook-timestamp`
 * (seconds, of this attempt) and `webhook-signature`, `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body` under a secret's bytes, one per secret, space-separated (the
 * specification's list, which lets a receiver still holding the previous secret verify during a
 * rotation's grace period).
 */
export function webhookHeaders(secrets: readonly string[], id: string, timestamp: number, body: string): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const signatures = secrets.map((secret) => `v1,${createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}

/**
 * The secret as the log and the views keep it: sealed with the key-encryption key (signing
 * needs it back, so it cannot be a hash), bound to its tenant and subscription so that a sealed
 * secret copied to another subscription does not open.
 */
export function sealWebhookSecret(keys: KeyEncryption, tenantId: string, subscriptionId: string, secret: string): string {
  return keys.seal('webhook-secret', secret, `${tenantId}\n${subscriptionId}`);
}

export function openWebhookSecret(keys: KeyEncryption, tenantId: string, subscriptionId: string, sealed: string): string {
  return keys.open('webhook-secret', sealed, `${tenantId}\n${subscriptionId}`);
}
