import { problems } from '../http/problem.js';

/** Events per page of `/audit/events` (JSON), and histories' pages. */
export const DEFAULT_AUDIT_PAGE = 100;
export const MAX_AUDIT_PAGE = 1000;
/** Events one `application/x-ndjson` answer may carry at most. */
export const MAX_AUDIT_STREAM = 100_000;

/** The filters and range of `/audit/events`. */
export interface EventQuery {
  /** Event types, any of which passes (none: every type). */
  types?: ReadonlySet<string>;
  stream?: string;
  actor?: string;
  /** Milliseconds since the epoch: `since` inclusive, `until` exclusive. */
  since?: number;
  until?: number;
  /** The log position to read after (0: from the start). */
  after: number;
  limit?: number;
}

const TYPE = /^[A-Za-z][A-Za-z0-9]{0,63}$/;
const MAX_TYPES = 50;
// RFC 3339 §5.6 date-time (a time zone is required: a bare local time would be ambiguous).
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i;
const POSITION = /^\d{1,15}$/;

type Query = Record<string, unknown>;

const bad = (path: string, detail: string) => problems.badRequest(`${path}: ${detail}`, [{ path, detail }]);

function asQuery(query: unknown, allowed: readonly string[]): Query {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Query;
  const unknown = Object.keys(q).filter((k) => !allowed.includes(k));
  if (unknown.length) throw problems.badRequest(`unknown query parameter ${unknown[0]}`, unknown.map((k) => ({ path: k, detail: 'unknown query parameter' })));
  return q;
}

/** A parameter given at most once, as a non-empty string of at most `max` characters. */
function single(q: Query, name: string, max = 512): string | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw bad(name, 'may be given once');
  if (v === '' || v.length > max) throw bad(name, `must be 1 to ${max} characters`);
  return v;
}

function position(q: Query): number {
  const v = single(q, 'after', 15);
  if (v === undefined) return 0;
  if (!POSITION.test(v)) throw bad('after', 'must be a log position (the `next` of an earlier answer)');
  return Number(v);
}

function limit(q: Query, fallback: number | undefined, max: number): number | undefined {
  const v = single(q, 'limit', 6);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max) throw bad('limit', `must be a whole number from 1 to ${max}`);
  return Number(v);
}

function time(q: Query, name: string): number | undefined {
  const v = single(q, name, 40);
  if (v === undefined) return undefined;
  const ms = DATE_TIME.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(ms)) throw bad(name, 'must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T12:00:00Z');
  return ms;
}

function types(q: Query): Set<string> | undefined {
  const raw = q.type;
  if (raw === undefined) return undefined;
  const given = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
  if (given.length > MAX_TYPES) throw bad('type', `at most ${MAX_TYPES} types`);
  for (const t of given) if (typeof t !== 'string' || !TYPE.test(t)) throw bad('type', 'must be event type names (letters and digits), repeated or separated by commas');
  return new Set(given as string[]);
}

/**
 * The query of `/audit/events`. A page (`stream` false) has `limit` 1 to 1000, default 100; an
 * `application/x-ndjson` answer has no limit but the one given, up to 100,000.
 */
export function eventQuery(query: unknown, streamed: boolean): EventQuery {
  const q = asQuery(query, ['type', 'stream', 'actor', 'since', 'until', 'after', 'limit']);
  const out: EventQuery = { after: position(q) };
  const t = types(q);
  const stream = single(q, 'stream');
  const actor = single(q, 'actor');
  const since = time(q, 'since');
  const until = time(q, 'until');
  const max = limit(q, streamed ? undefined : DEFAULT_AUDIT_PAGE, streamed ? MAX_AUDIT_STREAM : MAX_AUDIT_PAGE);
  if (since !== undefined && until !== undefined && since >= until) throw bad('until', 'must be later than since');
  if (t) out.types = t;
  if (stream !== undefined) out.stream = stream;
  if (actor !== undefined) out.actor = actor;
  if (since !== undefined) out.since = since;
  if (until !== undefined) out.until = until;
  if (max !== undefined) out.limit = max;
  return out;
}

/** The query of a token history: `limit` (1 to 1000, default 100) and `after` (a log position). */
export function historyQuery(query: unknown): { limit: number; after: number } {
  const q = asQuery(query, ['limit', 'after']);
  return { limit: limit(q, DEFAULT_AUDIT_PAGE, MAX_AUDIT_PAGE)!, after: position(q) };
}
