import type { Projection } from './projection.js';

/** A tenant's own shape of one form (`sign-in`, `registration`), keyed `<tenant>/<form>`. */
export interface FormView {
  tenantId: string;
  form: string;
  fields: Array<{ name: string; required: boolean; minLength?: number; maxLength?: number; pattern?: string }>;
  createdAt: string;
  updatedAt: string;
  /** The revision of the form's stream: its ETag in the admin API. */
  revision: number;
}

export const formKey = (tenantId: string, form: string) => `${tenantId}/${form}`;

export const formsProjection: Projection<FormView> = {
  view: 'forms',
  version: 1,
  eventTypes: ['FormChanged', 'FormDeleted'],
  indexes: [],
  documentId: (e) => formKey(e.data.tenantId, e.data.form),
  readsDocument: (e) => e.type === 'FormChanged',
  apply(doc, e) {
    if (e.type === 'FormDeleted') return null;
    const { tenantId, form, fields } = e.data;
    const at = e.metadata.occurredAt;
    return { tenantId, form, fields, createdAt: doc?.createdAt ?? at, updatedAt: at, revision: e.revision };
  },
};
