import type { FormDefinition, FormField, FormName } from './form.events.js';

/** The fields each form may show, in the order the page shows them. `username` is always there and required. */
export const FORM_FIELDS: Record<FormName, readonly string[]> = {
  'sign-in': ['username'],
  registration: ['username', 'email', 'name', 'given_name', 'family_name'],
};

/** The longest pattern an admin may give, and the bound of every field's length. */
export const MAX_PATTERN = 256;
export const MAX_FIELD_LENGTH = 1024;

/** What each form is without a tenant's own: every field it may show, only `username` required. */
export function defaultForm(form: FormName): FormDefinition {
  return { fields: FORM_FIELDS[form].map((name) => ({ name, required: name === 'username' })) };
}

/**
 * A pattern as the page's `pattern` attribute reads it (HTML: the whole value must match, with
 * the `v` flag), compiled the same way here so that the page and the server agree.
 */
export function compilePattern(pattern: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${pattern})$`, 'v');
  } catch {
    return undefined;
  }
}

/** Why `definition` cannot be form `form`, or undefined. */
export function formFault(form: FormName, definition: FormDefinition): string | undefined {
  const allowed = FORM_FIELDS[form];
  const seen = new Set<string>();
  for (const f of definition.fields) {
    if (!allowed.includes(f.name)) return `the ${form} form has no field ${f.name} (it may show ${allowed.join(', ')})`;
    if (seen.has(f.name)) return `the field ${f.name} is named twice`;
    seen.add(f.name);
    if (f.minLength !== undefined && (!Number.isInteger(f.minLength) || f.minLength < 0 || f.minLength > MAX_FIELD_LENGTH)) return `${f.name}: min_length must be 0 to ${MAX_FIELD_LENGTH}`;
    if (f.maxLength !== undefined && (!Number.isInteger(f.maxLength) || f.maxLength < 1 || f.maxLength > MAX_FIELD_LENGTH)) return `${f.name}: max_length must be 1 to ${MAX_FIELD_LENGTH}`;
    if (f.minLength !== undefined && f.maxLength !== undefined && f.minLength > f.maxLength) return `${f.name}: min_length is above max_length`;
    if (f.pattern !== undefined && (f.pattern.length > MAX_PATTERN || !compilePattern(f.pattern))) return `${f.name}: pattern must be a regular expression of at most ${MAX_PATTERN} characters`;
  }
  if (!definition.fields.some((f) => f.name === 'username' && f.required)) return 'the username field is always shown and required';
  return undefined;
}

/** How a value breaks a field's rules: `limit` is the length bound it missed. */
export interface FieldFault {
  fault: 'required' | 'tooShort' | 'tooLong' | 'pattern';
  limit?: number;
}

/** The fault of `value` against `field`'s rules, or undefined when it passes. Lengths count code points, as HTML's do not quite (UTF-16 units): bounds are checked here either way. */
export function checkField(field: FormField, value: string | undefined): FieldFault | undefined {
  if (value === undefined || value === '') return field.required ? { fault: 'required' } : undefined;
  const length = [...value].length;
  if (field.minLength !== undefined && length < field.minLength) return { fault: 'tooShort', limit: field.minLength };
  if (field.maxLength !== undefined && length > field.maxLength) return { fault: 'tooLong', limit: field.maxLength };
  if (field.pattern !== undefined && !compilePattern(field.pattern)!.test(value)) return { fault: 'pattern' };
  return undefined;
}

/** A fault in words, for the admin API's problem details. */
export function faultDetail(f: FieldFault): string {
  switch (f.fault) {
    case 'required':
      return 'required';
    case 'tooShort':
      return `must be at least ${f.limit} characters`;
    case 'tooLong':
      return `must be at most ${f.limit} characters`;
    case 'pattern':
      return 'does not have the expected form';
  }
}

/** Every fault of `values` against the form, by field: a field the form does not show (`present` names those sent), or one that breaks its rules. */
export function checkForm(definition: FormDefinition, values: Record<string, string | undefined>, present: readonly string[]): Array<{ path: string; detail: string }> {
  const shown = new Set(definition.fields.map((f) => f.name));
  const faults: Array<{ path: string; detail: string }> = [];
  for (const name of present) if (!shown.has(name)) faults.push({ path: name, detail: "not a field of this tenant's form" });
  for (const field of definition.fields) {
    const fault = checkField(field, values[field.name]);
    if (fault) faults.push({ path: field.name, detail: faultDetail(fault) });
  }
  return faults;
}
