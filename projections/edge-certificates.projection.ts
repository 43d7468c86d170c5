import type { Projection } from './projection.js';

/**
 * Every client certificate issued to a tenant's edges, keyed `<tenant>/<serial>`: `valid` until
 * a renewal replaces it (`replaced`) or its edge is disabled or deleted (`revoked`). What a TLS
 * terminator in front of central checks a presented edge certificate against, besides its
 * expiry. Documents stay after their edge is gone, so a revoked serial stays listed.
 */
export interface EdgeCertificateView {
  tenantId: string;
  serial: string;
  edgeId: string;
  thumbprint: string;
  notBefore: string;
  notAfter: string;
  status: 'valid' | 'replaced' | 'revoked';
  /** When it stopped being valid, and why. */
  endedAt?: string;
  reason?: 'renewed' | 'edge_disabled' | 'edge_deleted';
  revision: number;
}

export const edgeCertificateKey = (tenantId: string, serial: string) => `${tenantId}/${serial}`;

export const edgeCertificatesProjection: Projection<EdgeCertificateView> = {
  view: 'edge_certificates',
  version: 1,
  eventTypes: ['EdgeCertificateIssued', 'EdgeCertificateRevoked'],
  indexes: [{ fields: ['tenantId', 'status'] }],
  documentId: (e) => {
    const { tenantId, serial, replaces } = e.data;
    return e.type === 'EdgeCertificateIssued' && replaces ? [edgeCertificateKey(tenantId, serial), edgeCertificateKey(tenantId, replaces)] : edgeCertificateKey(tenantId, serial);
  },
  readsDocument: (e, id) => !(e.type === 'EdgeCertificateIssued' && id === edgeCertificateKey(e.data.tenantId, e.data.serial)),
  apply(doc, e, id) {
    const at = e.metadata.occurredAt;
    const { tenantId, edgeId, serial } = e.data;
    if (e.type === 'EdgeCertificateIssued' && id === edgeCertificateKey(tenantId, serial)) {
      const { thumbprint, notBefore, notAfter } = e.data;
      return { tenantId, serial, edgeId, thumbprint, notBefore, notAfter, status: 'valid', revision: e.revision };
    }
    if (!doc || doc.status !== 'valid') return doc;
    if (e.type === 'EdgeCertificateIssued') return { ...doc, status: 'replaced', endedAt: at, reason: 'renewed' };
    return { ...doc, status: 'revoked', endedAt: at, reason: e.data.reason };
  },
};
