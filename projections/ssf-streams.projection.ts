import type { Projection } from './projection.js';

/** Shared Signals streams keyed `<tenant>/<stream id>`: what a receiver configured, the subjects it added. */
export interface SsfStreamView {
  tenantId: string;
  streamId: string;
  clientId: string;
  eventsRequested: string[];
  /** The delivery method and endpoint; the push Authorization header only sealed. */
  delivery: { method: string; endpointUrl?: string; authorizationSealed?: string };
  description?: string;
  status: 'enabled' | 'paused' | 'disabled';
  reason?: string;
  /** Subject keys (`iss_sub:<sub>`, `email:<address>`). */
  subjects: string[];
  /** The log position of its creation: events before it are not the stream's. */
  since: number;
  createdAt: string;
  updatedAt: string;
}

export const ssfStreamKey = (tenantId: string, streamId: string) => `${tenantId}/${streamId}`;

export const ssfStreamsProjection: Projection<SsfStreamView> = {
  view: 'ssf_streams',
  version: 1,
  eventTypes: ['SsfStreamCreated', 'SsfStreamUpdated', 'SsfStreamStatusChanged', 'SsfSubjectAdded', 'SsfSubjectRemoved', 'SsfStreamDeleted'],
  indexes: [{ fields: ['tenantId', 'clientId'] }],
  documentId: (e) => ssfStreamKey(e.data.tenantId, e.data.streamId),
  readsDocument: (e) => e.type !== 'SsfStreamCreated',
  apply(doc, e) {
    const at = e.metadata.occurredAt;
    if (e.type === 'SsfStreamCreated') {
      const { tenantId, streamId, clientId, eventsRequested, delivery, description } = e.data;
      return { tenantId, streamId, clientId, eventsRequested, delivery, ...(description !== undefined ? { description } : {}), status: 'enabled', subjects: [], since: e.position, createdAt: at, updatedAt: at };
    }
    if (!doc) return null;
    switch (e.type) {
      case 'SsfStreamUpdated': {
        const { description: _d, ...rest } = doc;
        const { eventsRequested, delivery, description } = e.data;
        return { ...rest, eventsRequested, delivery, ...(description !== undefined ? { description } : {}), updatedAt: at };
      }
      case 'SsfStreamStatusChanged': {
        const { reason: _r, ...rest } = doc;
        return { ...rest, status: e.data.status, ...(e.data.reason !== undefined ? { reason: e.data.reason } : {}), updatedAt: at };
      }
      case 'SsfSubjectAdded':
        return { ...doc, subjects: [...doc.subjects, e.data.subject], updatedAt: at };
      case 'SsfSubjectRemoved':
        return { ...doc, subjects: doc.subjects.filter((s) => s !== e.data.subject), updatedAt: at };
      case 'SsfStreamDeleted':
        return null;
      default:
        return doc;
    }
  },
};
