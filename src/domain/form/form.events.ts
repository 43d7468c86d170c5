import type { DomainEvent } from '../shared/decider.js';

/** The forms a tenant shapes: the sign-in page, and the registration page and endpoint. */
export const FORM_NAMES = ['sign-in', 'registration'] as const;
export type FormName = (typeof FORM_NAMES)[number];

/** One field of a form: shown; required or not; its length bounds and a pattern the whole value must match. */
export interface FormField {
  name: string;
  required: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

export interface FormDefinition {
  fields: FormField[];
}

/** The whole form after an admin's change. */
export type FormChanged = DomainEvent<'FormChanged', { tenantId: string; form: FormName } & FormDefinition>;
export type FormDeleted = DomainEvent<'FormDeleted', { tenantId: string; form: FormName }>;

export type FormEvent = FormChanged | FormDeleted;
