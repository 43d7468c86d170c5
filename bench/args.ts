import { parseArgs } from 'node:util';

/**
 * Command-line flags of a benchmark: `--name value`, `--name=value` or a bare boolean flag,
 * with `--help` printing `usage`. Unknown flags stop the run with the usage line.
 */
export function readFlags<K extends string>(argv: readonly string[], kinds: Record<K, 'string' | 'boolean'>, usage: string): Partial<Record<K, string | boolean>> {
  const options = Object.fromEntries(Object.entries(kinds).map(([k, type]) => [k, { type }])) as Record<K, { type: 'string' | 'boolean' }>;
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: [...argv], options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${usage}`);
  }
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  return values as Partial<Record<K, string | boolean>>;
}

/** A numeric flag (underscores and commas allowed), at least `min`, whole when `integer`; `fallback` when absent. */
export function numberFlag(value: string | boolean | undefined, name: string, fallback: number, min: number, integer = false): number {
  if (value === undefined) return fallback;
  const n = Number(String(value).replace(/[_,]/g, ''));
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) throw new Error(`--${name} needs ${integer ? 'an integer' : 'a number'} >= ${min}, got ${value}`);
  return n;
}
