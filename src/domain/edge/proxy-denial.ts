import { type DomainEvent, factDecider } from '../shared/decider.js';

/** Why the edge's proxy refused a request before the upstream saw it. */
export type DenialReason = 'bad_path' | 'invalid_request' | 'no_token' | 'invalid_token' | 'wrong_audience' | 'no_route' | 'missing_permissions';

/**
 * The edge's proxy refused a request to a resource (400, 401 or 403); the upstream never saw
 * it. `path` is the request's path below the resource as sent, cut to 256 characters; the
 * caller is named when its token was valid. No token is recorded.
 */
export type ProxyRequestDenied = DomainEvent<
  'ProxyRequestDenied',
  { tenantId: string; resourceId: string; method: string; path: string; status: number; reason: DenialReason; sub?: string; clientId?: string; missing?: string[] }
>;

export type ProxyDenialCommand = { kind: 'RecordDenial'; denial: ProxyRequestDenied['data'] };

/** Denials are facts: each is recorded as it happens, whatever the stream holds. */
export const proxyDenialDecider = factDecider<ProxyDenialCommand, ProxyRequestDenied>((c) => [{ type: 'ProxyRequestDenied', data: c.denial }]);
