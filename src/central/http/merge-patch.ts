/**
 * RFC 7396 JSON Merge Patch: members of the patch replace the target's, `null` removes one, and
 * a patch that is not an object replaces the target whole. Members are defined, never assigned,
 * so that a `__proto__` member is data and not a prototype.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const base = typeof target === 'object' && target !== null && !Array.isArray(target) ? (target as Record<string, unknown>) : {};
  const result: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(base)) define(result, k, v);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete result[k];
    else define(result, k, mergePatch(Object.hasOwn(result, k) ? result[k] : undefined, v));
  }
  return result;
}

function define(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}
