import type { Projection } from './projection.js';

/** A tenant's texts for one language of the edge pages, keyed `<tenant>/<tag>` (the tag in lower case). */
export interface LocaleView {
  tenantId: string;
  tag: string;
  messages: Record<string, string>;
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
  /** The revision of the locale's stream this document shows: its ETag in the admin API. */
  revision: number;
}

export const localeKey = (tenantId: string, tag: string) => `${tenantId}/${tag}`;

export const localesProjection: Projection<LocaleView> = {
  view: 'locales',
  version: 1,
  eventTypes: ['LocaleMessagesChanged', 'LocaleMessagesDeleted'],
  indexes: [{ fields: ['tenantId'] }],
  documentId: (e) => localeKey(e.data.tenantId, e.data.tag),
  readsDocument: (e) => e.type === 'LocaleMessagesChanged',
  apply(doc, e) {
    if (e.type === 'LocaleMessagesDeleted') return null;
    const { tenantId, tag, messages, isDefault } = e.data;
    const at = e.metadata.occurredAt;
    return { tenantId, tag, messages, isDefault, createdAt: doc?.createdAt ?? at, updatedAt: at, revision: e.revision };
  },
};
