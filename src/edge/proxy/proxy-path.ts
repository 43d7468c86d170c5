/** A proxied request's target, split once: the tenant, the resource, and the path below it as decoded segments. */
export interface ProxyTarget {
  tenantId: string;
  resourceId: string;
  /** Decoded segments below the resource (`/a/b%20c` is `['a', 'b c']`; `/` is `[]`). */
  segments: string[];
  /** Whether the path ended in `/` after at least one segment. */
  trailingSlash: boolean;
  /** The query as sent, with its `?`, or ''. */
  search: string;
}

/** Tenant and resource ids as the admin API takes them, less `.` and `..`, which would be dot segments here. */
const ID = /^(?!\.{1,2}$)[A-Za-z0-9._~:-]{1,128}$/;
/** Percent-encodings of `/` and `\`: a segment that holds one would be split differently upstream. */
const ENCODED_SEPARATOR = /%(?:2f|5c)/i;
/** Controls, `%` (a decoded `%` is a double encoding), `/` and `\`: never in a decoded segment. */
const UNSAFE_DECODED = /[\u0000-\u001f\u007f%/\\]/;
/** RFC 3986 pchar less `%`: sent as they are; everything else is percent-encoded. */
const PCHAR = /[A-Za-z0-9\-._~!$&'()*+,;=:@]/;

/**
 * Splits the raw request target (`/{tenant}/resources/{resourceId}/{path}?{query}`) once, and
 * decodes each segment once. Anything that could be read two ways (by this check and by the
 * upstream) is refused rather than guessed at: an encoded `/` or `\`, a raw `\`, a `.` or `..`
 * segment (RFC 3986 §5.2.4 would remove them upstream, in either encoding), an empty segment
 * (`//`), a double encoding (`%252e`), a control character, bad UTF-8. Returns the target, or
 * why it is refused.
 */
export function parseProxyTarget(rawUrl: string): ProxyTarget | string {
  const q = rawUrl.indexOf('?');
  const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const search = q < 0 ? '' : rawUrl.slice(q);
  if (rawPath.includes('\\')) return 'the path has a backslash';
  const parts = rawPath.split('/');
  // ['', tenant, 'resources', resourceId, ...below]
  if (parts.length < 4 || parts[0] !== '' || parts[2] !== 'resources' || !ID.test(parts[1]) || !ID.test(parts[3])) return 'not a resource path';
  const below = parts.slice(4);
  const trailingSlash = below.length > 1 && below[below.length - 1] === '';
  if (trailingSlash) below.pop();
  // `/{tenant}/resources/{id}/` alone is the resource's root.
  if (below.length === 1 && below[0] === '') below.pop();
  const segments: string[] = [];
  for (const raw of below) {
    if (raw === '') return 'the path has an empty segment';
    if (ENCODED_SEPARATOR.test(raw)) return 'the path has an encoded "/" or "\\"';
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return 'the path is not percent-encoded UTF-8';
    }
    if (decoded === '.' || decoded === '..') return 'the path has a "." or ".." segment';
    if (UNSAFE_DECODED.test(decoded)) return 'the path has an encoded "%", a control character or a separator';
    segments.push(decoded);
  }
  return { tenantId: parts[1], resourceId: parts[3], segments, trailingSlash, search };
}

/** The path the upstream gets: its base path, then the checked segments, each encoded one way. */
export function upstreamPath(basePath: string, t: ProxyTarget): string {
  const base = basePath.replace(/\/+$/, '');
  const below = t.segments.map(encodeSegment).join('/');
  return `${base}/${below}${t.trailingSlash && below ? '/' : ''}${t.search}`;
}

function encodeSegment(s: string): string {
  let out = '';
  for (const ch of s) out += PCHAR.test(ch) ? ch : encodeURIComponent(ch);
  return out;
}
