import type { DomainEvent } from '../shared/decider.js';

/**
 * The tenant's internal CA for edge client certificates, made at its first use: its
 * certificate, and its private key sealed under the key-encryption key (purpose `edge-ca`,
 * bound to the tenant), never in usable form in the log.
 */
export type EdgeCaCreated = DomainEvent<
  'EdgeCaCreated',
  { tenantId: string; certificatePem: string; encryptedPrivateKey: string; serial: string; notAfter: string }
>;

export type EdgeCaEvent = EdgeCaCreated;
