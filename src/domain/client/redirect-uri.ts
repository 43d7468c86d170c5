import { DomainError } from '../shared/domain-error.js';

const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Loopback redirect URIs may vary only in port (RFC 8252 §7.3). */
export function isLoopback(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * A registrable redirect URI: absolute, no fragment, not a script or data scheme; plain
 * http only on loopback; a private-use scheme must contain a dot (RFC 8252 §7.1).
 */
export function validateRedirectUri(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DomainError('invalid_value', `redirect URI "${value}" is not an absolute URI`);
  }
  const fail = (why: string) => {
    throw new DomainError('invalid_value', `redirect URI "${value}" ${why}`);
  };
  if (FORBIDDEN_SCHEMES.has(url.protocol)) fail('uses a forbidden scheme');
  if (value.includes('#')) fail('must not contain a fragment');
  if (url.protocol === 'http:' && !isLoopback(url)) fail('may use http only on a loopback host');
  if (isLoopback(url) && withoutLoopbackPort(value) === undefined) fail('must be written plainly: lower-case host, a port from 1 to 65535 without leading zeros');
  if (url.protocol !== 'https:' && url.protocol !== 'http:' && !url.protocol.includes('.')) fail('uses a private-use scheme without a dot');
}

/** `http://`, one of LOOPBACK_HOSTS and the port (no leading zero, not 0), as written at the start of a URI. */
const LOOPBACK_PREFIX = /^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::([1-9]\d{0,4}))?(?=[/?]|$)/;

/** The URI as written, without its port, when it is written as a loopback URI with a valid port (1 to 65535, written plainly). */
function withoutLoopbackPort(uri: string): string | undefined {
  const m = LOOPBACK_PREFIX.exec(uri);
  if (!m || Number(m[2] ?? 0) > 65535) return undefined;
  return m[1] + uri.slice(m[0].length);
}

/**
 * Exact string match; a loopback URI may differ only in its port (RFC 8252 §7.3). Compared as
 * written, not as parsed: `http://127.1/cb` or `http://127.0.0.1:9/a/../cb` is not a spelling
 * of `http://127.0.0.1/cb`.
 */
export function redirectUriMatches(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  const p = withoutLoopbackPort(presented);
  return p !== undefined && registered.some((r) => withoutLoopbackPort(r) === p);
}

/**
 * The redirect URI with response parameters added to its query. The query it was registered
 * with is kept as written (RFC 6749 §3.1.2; the URL parser only escapes what a URL may not
 * hold), except for parameters of the names added, which the added ones replace.
 */
export function withResponseParams(uri: string, fields: Record<string, string | undefined>): string {
  const added = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) added.set(k, v);
  const url = new URL(uri);
  const end = url.href.search(/[?#]/);
  const base = end < 0 ? url.href : url.href.slice(0, end);
  const kept = url.search.slice(1).split('&').filter((pair) => pair !== '' && !added.has(formName(pair)));
  const query = [...kept, ...(added.size ? [added.toString()] : [])].join('&');
  return query ? `${base}?${query}` : base;
}

/** The decoded name of one `name=value` pair of a form-encoded query (the pair as written when it does not decode). */
function formName(pair: string): string {
  const name = pair.split('=', 1)[0].replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
