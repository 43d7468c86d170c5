import type { DomainEvent } from '../shared/decider.js';

/** Whether a registered edge may hold a certificate: a disabled edge's is revoked and none is issued to it. */
export type EdgeStatus = 'active' | 'disabled';

/** A traffic-plane instance of the tenant as the admin registers it. */
export interface EdgeDefinition {
  edgeId: string;
  name: string;
  description?: string;
  /** Host names (or `*.domain`) the instance serves the tenant's edge routes on, for the operator's load balancer. */
  allowedHosts: string[];
  status: EdgeStatus;
}

/** What the log keeps of an issued certificate: never the certificate's key (the edge keeps it), only what identifies the certificate. */
export interface EdgeCertificateFacts {
  /** Hexadecimal serial number, unique under the tenant's CA. */
  serial: string;
  /** SHA-256 of the DER certificate, base64url: RFC 8705 §3.1's `x5t#S256`. */
  thumbprint: string;
  notBefore: string;
  notAfter: string;
}

export type EdgeRegistered = DomainEvent<'EdgeRegistered', { tenantId: string } & EdgeDefinition>;
/** The whole definition after an admin's change. */
export type EdgeUpdated = DomainEvent<'EdgeUpdated', { tenantId: string } & EdgeDefinition>;
/** A certificate issued to the edge; the one it `replaces` is no longer valid. */
export type EdgeCertificateIssued = DomainEvent<'EdgeCertificateIssued', { tenantId: string; edgeId: string; replaces?: string } & EdgeCertificateFacts>;
/** The edge's valid certificate withdrawn, because the edge was disabled or deleted. */
export type EdgeCertificateRevoked = DomainEvent<'EdgeCertificateRevoked', { tenantId: string; edgeId: string; serial: string; reason: 'edge_disabled' | 'edge_deleted' }>;
export type EdgeDeleted = DomainEvent<'EdgeDeleted', { tenantId: string; edgeId: string }>;

export type EdgeInstanceEvent = EdgeRegistered | EdgeUpdated | EdgeCertificateIssued | EdgeCertificateRevoked | EdgeDeleted;
