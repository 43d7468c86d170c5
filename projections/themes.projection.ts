import type { Projection } from './projection.js';

/** A tenant's theme of the edge pages, keyed by the tenant's id. */
export interface ThemeView {
  tenantId: string;
  logoUrl?: string;
  colors: Record<string, string>;
  css?: string;
  createdAt: string;
  updatedAt: string;
  /** The revision of the theme's stream: its ETag in the admin API and that of the stylesheet. */
  revision: number;
}

export const themesProjection: Projection<ThemeView> = {
  view: 'themes',
  version: 1,
  eventTypes: ['ThemeChanged', 'ThemeDeleted'],
  indexes: [],
  documentId: (e) => e.data.tenantId,
  readsDocument: (e) => e.type === 'ThemeChanged',
  apply(doc, e) {
    if (e.type === 'ThemeDeleted') return null;
    const { tenantId, logoUrl, colors, css } = e.data;
    const at = e.metadata.occurredAt;
    return { tenantId, colors, ...(logoUrl !== undefined ? { logoUrl } : {}), ...(css !== undefined ? { css } : {}), createdAt: doc?.createdAt ?? at, updatedAt: at, revision: e.revision };
  },
};
