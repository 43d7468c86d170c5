import { isUtf8 } from 'node:buffer';
import type { FastifyRequest } from 'fastify';
import { InvalidRequest, UnsupportedContentEncoding } from './oauth-errors.js';

/** application/x-www-form-urlencoded fields, without a prototype: a name's value, or its values when it is repeated. */
export type FormFields = Record<string, string | string[]>;

/** What a query that cannot be read is taken as: its parameters are refused when read (see readParams). */
export const MALFORMED = Symbol('malformed');

/**
 * Parses application/x-www-form-urlencoded text. Every percent-escape must be well formed and
 * the result UTF-8 (RFC 6749 Appendix B); anything else is undefined, rather than read as
 * other text than the sender meant (a `state` goes back exactly as it came).
 */
export function parseUrlencoded(text: string): FormFields | undefined {
  const out: FormFields = Object.create(null);
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    if (name === undefined || value === undefined) return undefined;
    const seen = out[name];
    if (seen === undefined) out[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[name] = [seen, value];
  }
  return out;
}

function decode(s: string): string | undefined {
  const spaced = s.includes('+') ? s.replaceAll('+', ' ') : s;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}

/** Fastify's query parser. A URL is ASCII (RFC 3986 §2); a query that is not, or does not parse, is MALFORMED. */
export function parseQuery(query: string): FormFields {
  // eslint-disable-next-line no-control-regex
  const fields = /[^\x00-\x7f]/.test(query) ? undefined : parseUrlencoded(query);
  return fields ?? Object.assign(Object.create(null) as FormFields, { [MALFORMED]: true });
}

/** A byte beyond ASCII, raw or percent-escaped. */
const NOT_ASCII = /[^\x00-\x7f]|%[89a-f]/i;

/**
 * The parser of form bodies (Nest passes what it throws to `done`): UTF-8 only, so a body
 * whose bytes are not UTF-8, or one beyond ASCII in another charset, is refused.
 */
export function parseFormBody(req: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void): void {
  requireUncompressed(req);
  // A body labelled with another charset reads the same as UTF-8 while it is ASCII, escapes
  // included; beyond that it would be read as other text than was sent.
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' && NOT_ASCII.test(body.toString('latin1'))) {
    throw new InvalidRequest('the body must be UTF-8 (charset=utf-8)');
  }
  const fields = isUtf8(body) ? parseUrlencoded(body.toString('utf8')) : undefined;
  if (!fields) throw new InvalidRequest('the body is not valid application/x-www-form-urlencoded UTF-8');
  done(null, fields);
}

/** RFC 9110 §8.4: a compressed body read as a form would be garbage; say why instead. */
export function requireUncompressed(req: FastifyRequest): void {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') throw new UnsupportedContentEncoding('the body must not be compressed (Content-Encoding)');
}
