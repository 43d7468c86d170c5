import { InvalidRequest } from './oauth-errors.js';

export type Params = Record<string, string | undefined>;

/**
 * Request parameters as single strings (RFC 6749 §3.1: a parameter sent twice is an
 * error; an empty value counts as absent).
 */
export function readParams(...sources: unknown[]): Params {
  const out: Params = {};
  for (const source of sources) {
    if (source === undefined || source === null) continue;
    if (typeof source !== 'object') throw new InvalidRequest('the request body must be application/x-www-form-urlencoded');
    for (const [k, v] of Object.entries(source as Record<string, unknown>)) {
      if (Array.isArray(v) || (out[k] !== undefined && v !== '')) throw new InvalidRequest(`parameter ${k} is repeated`);
      if (typeof v !== 'string') throw new InvalidRequest(`parameter ${k} must be a string`);
      if (v !== '') out[k] = v;
    }
  }
  return out;
}

export function required(params: Params, name: string): string {
  const v = params[name];
  if (v === undefined) throw new InvalidRequest(`${name} is required`);
  return v;
}

/** The distinct values of a space-separated list; an empty one counts as absent (RFC 6749 §3.3: a scope has at least one value). */
export function scopeList(scope: string | undefined): string[] | undefined {
  const values = scope?.split(' ').filter(Boolean);
  return values?.length ? [...new Set(values)] : undefined;
}
