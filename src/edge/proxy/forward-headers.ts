import type { IncomingHttpHeaders } from 'node:http';
import { DEFAULT_IDENTITY_HEADER } from '../../domain/resource/resource-routes.js';

/** RFC 9110 §7.6.1 connection-specific fields, and the proxy ones: they end at this hop. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);
/**
 * Never passed on as the client wrote them: the upstream's host is its own; credentials meant
 * for this server (the token unless the resource asks for it, DPoP proofs); what says where the
 * request came from, which the edge writes itself; `Expect`, which Node answered already.
 */
const REPLACED = new Set(['host', 'authorization', 'dpop', 'forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-real-ip', 'x-request-id', 'expect']);
/** The names of the edge's own cookies (see TenantCookies): `sid`, `interaction-<id>`, `device`, `logout-relay`, bare or as `__Host-<name>.<tenant>`. */
const EDGE_COOKIE = /^(?:__Host-)?(?:sid|device|logout-relay|interaction(?:-[^.;=]*)?)(?:\.[A-Za-z0-9._~:-]+)?$/;

export interface Forwarding {
  /** The resource's identity header (lower case); `x-identity` is stripped too. */
  identityHeader: string;
  /** The caller's identity JWT; none for a public route. */
  identity?: string;
  /** The caller's `Authorization` line, when the resource forwards it. */
  authorization?: string;
  /** The client's address, the public host and protocol, and the request id. */
  clientIp?: string;
  host: string;
  proto: string;
  requestId: string;
}

/** The fields a `Connection` header names: connection-specific too (RFC 9110 §7.6.1). */
function connectionNamed(headers: IncomingHttpHeaders): Set<string> {
  const raw = headers.connection;
  return new Set((Array.isArray(raw) ? raw.join(',') : (raw ?? '')).split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
}

/** The client's cookies less the edge's own; undefined when none remain. */
export function foreignCookies(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const kept = header
    .split(';')
    .map((c) => c.trim())
    .filter((c) => c && !EDGE_COOKIE.test(c.slice(0, c.indexOf('=') < 0 ? c.length : c.indexOf('=')).trim()));
  return kept.length ? kept.join('; ') : undefined;
}

/** What the upstream gets: the client's end-to-end headers, less everything above, plus the edge's own. */
export function upstreamRequestHeaders(headers: IncomingHttpHeaders, f: Forwarding): Record<string, string | string[]> {
  const dropped = connectionNamed(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || REPLACED.has(name) || dropped.has(name)) continue;
    if (name === f.identityHeader || name === DEFAULT_IDENTITY_HEADER || name === 'cookie') continue;
    out[name] = value;
  }
  const cookie = foreignCookies(headers.cookie);
  if (cookie) out.cookie = cookie;
  if (f.identity) out[f.identityHeader] = f.identity;
  if (f.authorization) out.authorization = f.authorization;
  if (f.clientIp) out['x-forwarded-for'] = f.clientIp;
  out['x-forwarded-host'] = f.host;
  out['x-forwarded-proto'] = f.proto;
  out['x-request-id'] = f.requestId;
  return out;
}

/** What the client gets of the upstream's answer: its end-to-end headers (the edge writes its own `X-Request-Id`). */
export function clientResponseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const connection = headers.connection;
  const dropped = new Set((Array.isArray(connection) ? connection.join(',') : (connection ?? '')).split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || dropped.has(name) || name === 'x-request-id') continue;
    out[name] = value;
  }
  return out;
}
