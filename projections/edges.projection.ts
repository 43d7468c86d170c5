import type { Projection } from './projection.js';

/** A registered edge (traffic-plane instance), keyed `<tenant>/<edge id>`, with its valid certificate. */
export interface EdgeView {
  tenantId: string;
  edgeId: string;
  name: string;
  description?: string;
  allowedHosts: string[];
  status: 'active' | 'disabled';
  /** The valid certificate, if any: a disabled edge's was revoked. */
  certificate?: { serial: string; thumbprint: string; notBefore: string; notAfter: string };
  /** When a certificate was last issued to it. */
  lastRenewal?: string;
  createdAt: string;
  updatedAt: string;
  /** The revision of the edge's stream this document shows: its ETag in the admin API. */
  revision: number;
}

export const edgeKey = (tenantId: string, edgeId: string) => `${tenantId}/${edgeId}`;

export const edgesProjection: Projection<EdgeView> = {
  view: 'edges',
  version: 1,
  eventTypes: ['EdgeRegistered', 'EdgeUpdated', 'EdgeCertificateIssued', 'EdgeCertificateRevoked', 'EdgeDeleted'],
  indexes: [],
  documentId: (e) => edgeKey(e.data.tenantId, e.data.edgeId),
  readsDocument: (e) => e.type !== 'EdgeRegistered' && e.type !== 'EdgeDeleted',
  apply(doc, e) {
    const at = e.metadata.occurredAt;
    switch (e.type) {
      case 'EdgeRegistered':
      case 'EdgeUpdated': {
        const { tenantId, edgeId, name, description, allowedHosts, status } = e.data;
        const { certificate, lastRenewal } = doc ?? {};
        return {
          tenantId, edgeId, name, ...(description !== undefined ? { description } : {}), allowedHosts, status,
          ...(certificate ? { certificate } : {}), ...(lastRenewal ? { lastRenewal } : {}),
          createdAt: doc?.createdAt ?? at, updatedAt: at, revision: e.revision,
        };
      }
      case 'EdgeCertificateIssued': {
        if (!doc) return null;
        const { serial, thumbprint, notBefore, notAfter } = e.data;
        return { ...doc, certificate: { serial, thumbprint, notBefore, notAfter }, lastRenewal: at, updatedAt: at, revision: e.revision };
      }
      case 'EdgeCertificateRevoked': {
        if (!doc) return null;
        const { certificate: _revoked, ...rest } = doc;
        return { ...rest, updatedAt: at, revision: e.revision };
      }
      case 'EdgeDeleted':
        return null;
      default:
        return doc;
    }
  },
};
