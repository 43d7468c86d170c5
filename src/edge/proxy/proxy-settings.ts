/** How the edge's proxy talks to upstreams (environment variables, listed in the README). */
export interface ProxySettings {
  /** How long the upstream may take to answer, and to send each next part of its body (`PROXY_TIMEOUT_MS`). */
  timeoutMs: number;
  /** Keep-alive connections per upstream, and so requests under way there at once (`PROXY_CONNECTIONS`). */
  connections: number;
  /** Requests that may wait for a connection per upstream; beyond, 503 (`PROXY_QUEUE`). */
  queue: number;
  /** Lifetime of the identity JWT the upstream gets, in seconds (`PROXY_IDENTITY_TTL`). */
  identityTtl: number;
}

export const PROXY_SETTINGS = Symbol('PROXY_SETTINGS');

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be a whole number of at least ${min}, got "${raw}"`);
  return Number(raw);
}

export function proxySettings(env: NodeJS.ProcessEnv = process.env): ProxySettings {
  return {
    timeoutMs: whole(env, 'PROXY_TIMEOUT_MS', 30_000, 1),
    connections: whole(env, 'PROXY_CONNECTIONS', 32, 1),
    queue: whole(env, 'PROXY_QUEUE', 256, 0),
    identityTtl: whole(env, 'PROXY_IDENTITY_TTL', 60, 1),
  };
}
