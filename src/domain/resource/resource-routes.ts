import { ITEM_ID } from './resource.decider.js';

/** A route of a resource as the edge's proxy enforces it: which requests it covers and what they need. */
export interface ResourceRoute {
  /** Upper-case HTTP methods, or `*` for every method. */
  methods: string[];
  /**
   * A path pattern below the resource: `/` and segments; `*` stands for one segment, and `**`,
   * as the last segment only, for what follows (nothing included).
   */
  path: string;
  /** Permission ids the caller must all hold (from roles); none: any authenticated caller. */
  permissions: string[];
  /** Served without a caller; then `permissions` is empty. */
  public?: boolean;
}

/** The header that carries the caller's identity to the upstream, unless the resource names another. */
export const DEFAULT_IDENTITY_HEADER = 'x-identity';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', '*']);
/** RFC 3986 pchar without `%`: a pattern's literal segments are matched against decoded segments. */
const LITERAL_SEGMENT = /^[A-Za-z0-9\-._~!$&'()+,;=:@]+$/;
/** RFC 9110 §5.1 field-name (token), lower case. */
const HEADER_NAME = /^[a-z0-9!#$%&'*+\-.^_`|~]{1,64}$/;
/** Headers the proxy owns (framing, hop-by-hop, routing, credentials): no resource may use them for identity. */
const RESERVED_HEADERS = new Set([
  'host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length',
  'content-type', 'content-encoding', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'dpop', 'forwarded',
  'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'expect',
]);

export const MAX_ROUTES = 100;

/** What is wrong with a resource's routes and identity header; undefined when nothing is. */
export function routesFault(routes: readonly ResourceRoute[], identityHeader: string | undefined): string | undefined {
  if (routes.length > MAX_ROUTES) return `at most ${MAX_ROUTES} routes`;
  for (const [i, r] of routes.entries()) {
    const at = `routes[${i}]`;
    if (r.methods.length === 0 || r.methods.some((m) => !METHODS.has(m))) return `${at}.methods must be one or more of ${[...METHODS].join(', ')}`;
    const fault = patternFault(r.path);
    if (fault) return `${at}.path ${fault}`;
    if (r.permissions.some((p) => !ITEM_ID.test(p))) return `${at}.permissions must be permission ids`;
    if (r.public && r.permissions.length) return `${at} is public: it cannot require permissions`;
  }
  if (identityHeader !== undefined && (!HEADER_NAME.test(identityHeader) || RESERVED_HEADERS.has(identityHeader))) {
    return 'identity_header must be a lower-case header name that is not a hop-by-hop, framing or credential header';
  }
  return undefined;
}

function patternFault(path: string): string | undefined {
  if (!path.startsWith('/') || path.length > 1024) return 'must start with "/" (at most 1024 characters)';
  if (path === '/') return undefined;
  const segments = path.slice(1).split('/');
  for (const [i, s] of segments.entries()) {
    if (s === '**' && i !== segments.length - 1) return 'may have "**" as its last segment only';
    if (s === '*' || s === '**') continue;
    if (s === '' || s === '.' || s === '..' || !LITERAL_SEGMENT.test(s)) return `has a bad segment "${s}": no empty, "." or ".." segments, no "%"`;
  }
  return undefined;
}

/** Whether a pattern covers a request's decoded path segments (`/a/b` is `['a', 'b']`, `/` is `[]`). */
export function patternMatches(pattern: string, segments: readonly string[]): boolean {
  const parts = pattern === '/' ? [] : pattern.slice(1).split('/');
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '**') return true;
    if (i >= segments.length) return false;
    if (parts[i] !== '*' && parts[i] !== segments[i]) return false;
  }
  return parts.length === segments.length;
}

/**
 * The first route (in the resource's order) that covers the request; none: the request is
 * refused. A route for GET covers HEAD too (RFC 9110 §9.3.2: HEAD is GET without the content).
 */
export function routeFor(routes: readonly ResourceRoute[], method: string, segments: readonly string[]): ResourceRoute | undefined {
  const covers = (r: ResourceRoute) => r.methods.includes(method) || r.methods.includes('*') || (method === 'HEAD' && r.methods.includes('GET'));
  return routes.find((r) => covers(r) && patternMatches(r.path, segments));
}
