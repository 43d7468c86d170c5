import { InvalidRequest, InvalidScope } from './oauth-errors.js';
import { MALFORMED } from './urlencoded.js';

export type Params = Record<string, string | undefined>;

/** The longest `state` taken (at /authorize and /logout): it goes back to the client in a URL. */
export const MAX_STATE_LENGTH = 2048;

/**
 * Request parameters as single strings (RFC 6749 §3.1: a parameter sent twice is an
 * error; an empty value counts as absent).
 */
export function readParams(...sources: unknown[]): Params {
  return collect(sources);
}

export interface ParamsWithRepeats {
  params: Params;
  /** The parameters sent more than once, each an error (RFC 6749 §3.1). */
  repeated: string[];
}

/**
 * As readParams, except that a parameter sent more than once keeps its first value and is
 * named in `repeated`, for an endpoint that must first learn where to send that error.
 */
export function readParamsNamingRepeats(...sources: unknown[]): ParamsWithRepeats {
  const repeated: string[] = [];
  return { params: collect(sources, repeated), repeated };
}

function collect(sources: unknown[], repeated?: string[]): Params {
  // No prototype: a parameter named `constructor` or `toString` is a parameter like any other.
  const out: Params = Object.create(null);
  for (const source of sources) {
    if (source === undefined || source === null) continue;
    if (typeof source !== 'object') throw new InvalidRequest('the request body must be application/x-www-form-urlencoded');
    requireReadable(source);
    for (const [k, raw] of Object.entries(source as Record<string, unknown>)) {
      if (Array.isArray(raw) || (out[k] !== undefined && raw !== '')) {
        if (!repeated) throw repeatedParameter(k);
        if (!repeated.includes(k)) repeated.push(k);
      }
      const v = Array.isArray(raw) ? raw[0] : raw;
      if (typeof v !== 'string') throw new InvalidRequest(`parameter ${k} must be a string`);
      if (v !== '' && out[k] === undefined) out[k] = v;
    }
  }
  return out;
}

/** A query that could not be read (see parseQuery) is refused wherever its parameters are looked at. */
function requireReadable(source: object): void {
  if (MALFORMED in source) throw new InvalidRequest('the query is not valid percent-encoded UTF-8');
}

/**
 * Whether `source` (a parsed query or body) carries parameter `name`, for an endpoint that
 * refuses it there; sent empty, it counts as absent (RFC 6749 §3.1).
 */
export function carries(source: unknown, name: string): boolean {
  if (typeof source !== 'object' || source === null) return false;
  requireReadable(source);
  return Object.hasOwn(source, name) && (source as Params)[name] !== '';
}

/** The error for parameter `name` sent more than once; a long name is cut, as it may go back to the client in a URL. */
export function repeatedParameter(name: string): InvalidRequest {
  return new InvalidRequest(`parameter ${name.length <= 40 ? name : `${name.slice(0, 40)}...`} is repeated`);
}

export function required(params: Params, name: string): string {
  const v = params[name];
  if (v === undefined) throw new InvalidRequest(`${name} is required`);
  return v;
}

/** The distinct values of a space-separated list. */
export function scopeList(scope: string | undefined): string[] | undefined {
  if (scope === undefined) return undefined;
  return [...new Set(scope.split(' ').filter(Boolean))];
}

/** The token request's `scope`, undefined when absent; sent without any value it is malformed (RFC 6749 §3.3). */
export function requestedScope(params: Params): string[] | undefined {
  const scope = scopeList(params.scope);
  if (scope?.length === 0) throw new InvalidScope('scope must name at least one scope');
  return scope;
}
