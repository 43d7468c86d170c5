import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import type { FormView } from '../../../projections/forms.projection.js';
import { formFault, MAX_PATTERN } from '../../domain/form/form-rules.js';
import { FORM_NAMES, type FormDefinition, type FormName } from '../../domain/form/form.events.js';
import { problems } from '../http/problem.js';

export class FormFieldDto {
  @IsString()
  @MaxLength(64)
  name!: string;

  @IsBoolean()
  required!: boolean;

  @IsOptional()
  @IsInt()
  min_length?: number;

  @IsOptional()
  @IsInt()
  max_length?: number;

  /** A regular expression the whole value must match (as the HTML `pattern` attribute reads it). */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_PATTERN)
  pattern?: string;
}

/** A tenant's shape of one form: the fields shown, in order, with their rules. */
export class FormDto {
  @IsArray()
  @ArrayMaxSize(16)
  @ValidateNested({ each: true })
  @Type(() => FormFieldDto)
  fields!: FormFieldDto[];
}

/** The form of a path, or a 404. */
export function formNameOf(form: string): FormName {
  if (!(FORM_NAMES as readonly string[]).includes(form)) throw problems.notFound(`no form ${form}: the forms are ${FORM_NAMES.join(', ')}`);
  return form as FormName;
}

export function formDefinitionOf(form: FormName, dto: FormDto): FormDefinition {
  const definition = {
    fields: dto.fields.map((f) => ({
      name: f.name,
      required: f.required,
      ...(f.min_length !== undefined ? { minLength: f.min_length } : {}),
      ...(f.max_length !== undefined ? { maxLength: f.max_length } : {}),
      ...(f.pattern !== undefined ? { pattern: f.pattern } : {}),
    })),
  };
  const fault = formFault(form, definition);
  if (fault) throw problems.badRequest(fault, [{ path: 'fields', detail: fault }]);
  return definition;
}

export function formRepresentation(f: FormView): Record<string, unknown> {
  const fields = f.fields.map((x) => ({
    name: x.name,
    required: x.required,
    ...(x.minLength !== undefined ? { min_length: x.minLength } : {}),
    ...(x.maxLength !== undefined ? { max_length: x.maxLength } : {}),
    ...(x.pattern !== undefined ? { pattern: x.pattern } : {}),
  }));
  return { form: f.form, fields, created_at: f.createdAt, updated_at: f.updatedAt };
}
