import { problems } from './problem.js';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

/** `?limit=&after=` of a list: at most MAX_PAGE items, after the id a previous page ended with; `filters` names the list's other parameters. */
export function pageQuery(query: unknown, filters: readonly string[] = ['username', 'email']): { limit: number; after?: string } {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const { limit: rawLimit, after, ...rest } = q;
  const unknown = Object.keys(rest).filter((k) => !filters.includes(k));
  if (unknown.length) throw problems.badRequest(`unknown query parameter ${unknown[0]}`, unknown.map((k) => ({ path: k, detail: 'unknown query parameter' })));
  let limit = DEFAULT_PAGE;
  if (rawLimit !== undefined) {
    if (typeof rawLimit !== 'string' || !/^\d{1,4}$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > MAX_PAGE) {
      throw problems.badRequest(`limit must be a whole number from 1 to ${MAX_PAGE}`, [{ path: 'limit', detail: `a whole number from 1 to ${MAX_PAGE}` }]);
    }
    limit = Number(rawLimit);
  }
  if (after !== undefined && (typeof after !== 'string' || after === '' || after.length > 256)) throw problems.badRequest('after must be the cursor a previous page gave', [{ path: 'after', detail: 'a cursor from a previous page' }]);
  return after === undefined ? { limit } : { limit, after };
}

/**
 * A page of a list read with `limit + 1` documents: the items, and `next` (the cursor of the
 * next page) when there are more.
 */
export function pageOf<D>(docs: readonly D[], limit: number, cursorOf: (d: D) => string, render: (d: D) => unknown): { items: unknown[]; next?: string } {
  const items = docs.slice(0, limit);
  return docs.length > limit ? { items: items.map(render), next: cursorOf(items[items.length - 1]) } : { items: items.map(render) };
}
