import { ValidationPipe } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { type ValidationError, validateSync } from 'class-validator';
import { type FieldError, Problem, problems } from './problem.js';

const OPTIONS = { whitelist: true, forbidNonWhitelisted: true } as const;

/** class-validator's nested errors as one list of field paths (`redirect_uris.0` becomes `redirect_uris[0]`). */
function fieldErrors(errors: readonly ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((e) => {
    const path = /^\d+$/.test(e.property) ? `${parent}[${e.property}]` : parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((detail) => ({ path, detail: detail.replace(/^property \S+ should not exist$/, 'unknown field') }));
    return [...own, ...fieldErrors(e.children ?? [], path)];
  });
}

function invalid(errors: ValidationError[]): Problem {
  const seen = new Set<string>();
  const unique = fieldErrors(errors).filter((e) => !seen.has(`${e.path}\n${e.detail}`) && seen.add(`${e.path}\n${e.detail}`));
  return problems.badRequest('the request body is not valid', unique);
}

/** The pipe of every admin body: unknown fields refused, each fault named by its path. */
export const adminValidation = new ValidationPipe({ ...OPTIONS, transform: true, exceptionFactory: invalid });

/** The same checks for a document built here (a merge-patched item): the DTO instance, or a 400 problem. */
export function validated<T extends object>(dto: new () => T, plain: unknown): T {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) throw problems.badRequest('the request body must be a JSON object');
  const instance = plainToInstance(dto, plain);
  const errors = validateSync(instance, OPTIONS);
  if (errors.length) throw invalid(errors);
  return instance;
}
