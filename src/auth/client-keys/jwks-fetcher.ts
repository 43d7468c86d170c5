import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { PRIVATE_MEMBERS } from '../../domain/client/client-jwks.js';
import type { PublicJwk } from '../../domain/client/client.events.js';
import { isPublicAddress, publicOnlyLookup } from '../../shared/address-policy.js';

/** Limits of fetching a client's `jwks_uri` (every variable is in the README's configuration table). */
export interface JwksUriSettings {
  /** The whole fetch (connect, headers, body), in milliseconds. */
  timeoutMs: number;
  /** The largest JWK Set document taken, in bytes. */
  maxBytes: number;
}

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be a whole number of at least ${min}, got "${raw}"`);
  return Number(raw);
}

export function jwksUriSettings(env: NodeJS.ProcessEnv = process.env): JwksUriSettings {
  return { timeoutMs: whole(env, 'JWKS_URI_TIMEOUT_MS', 5000, 50), maxBytes: whole(env, 'JWKS_URI_MAX_BYTES', 65_536, 1024) };
}

/** Why a client's keys could not be had from its `jwks_uri`; the message is safe to show the client. */
export class JwksUnavailable extends Error {}

/** A fetched JWK Set, with how long its server lets it be cached (Cache-Control max-age), when it says. */
export interface FetchedJwks {
  keys: PublicJwk[];
  maxAgeSeconds?: number;
}

/** At most this many keys are kept from one document. */
const MAX_KEYS = 100;

/**
 * Fetches JWK Sets from client `jwks_uri`s (RFC 7591 §2): GET over the given agent, no
 * redirects, within a time and size limit, and never to an internal address unless
 * `allowInternal` (the client was registered by an administrator).
 */
export class JwksFetcher {
  private readonly publicOnly: Agent;
  private readonly any: Agent;

  constructor(private readonly settings: JwksUriSettings) {
    const common = { connectTimeout: settings.timeoutMs, headersTimeout: settings.timeoutMs, bodyTimeout: settings.timeoutMs, keepAliveTimeout: 4_000, connections: 4 };
    this.publicOnly = new Agent({ ...common, connect: { lookup: publicOnlyLookup as never } });
    this.any = new Agent(common);
  }

  async fetch(uri: string, allowInternal: boolean): Promise<FetchedJwks> {
    const url = new URL(uri);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An IP literal is connected to without a lookup: checked here instead.
    if (!allowInternal && isIP(host) !== 0 && !isPublicAddress(host)) throw new JwksUnavailable('the client\'s jwks_uri points to an internal address');
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.settings.timeoutMs);
    try {
      const res = await request(url, { method: 'GET', dispatcher: allowInternal ? this.any : this.publicOnly, headers: { accept: 'application/jwk-set+json, application/json' }, signal: abort.signal });
      // Redirects are not followed: the registered URI is the only one trusted.
      if (res.statusCode !== 200) {
        discard(res.body);
        throw new JwksUnavailable(`the client's jwks_uri answered ${res.statusCode}`);
      }
      const length = Number(res.headers['content-length'] ?? 0);
      if (length > this.settings.maxBytes) {
        discard(res.body);
        throw new JwksUnavailable('the client\'s jwks_uri document is too large');
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > this.settings.maxBytes) {
          discard(res.body);
          throw new JwksUnavailable('the client\'s jwks_uri document is too large');
        }
        chunks.push(chunk as Buffer);
      }
      return { keys: publicSignatureKeys(Buffer.concat(chunks).toString('utf8')), ...maxAge(res.headers['cache-control']) };
    } catch (e) {
      if (e instanceof JwksUnavailable) throw e;
      if (abort.signal.aborted) throw new JwksUnavailable('the client\'s jwks_uri did not answer in time');
      if ((e as { code?: string }).code === 'EINTERNALADDRESS' || (e as { cause?: { code?: string } }).cause?.code === 'EINTERNALADDRESS') throw new JwksUnavailable('the client\'s jwks_uri points to an internal address');
      throw new JwksUnavailable('the client\'s jwks_uri could not be fetched');
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.publicOnly.close(), this.any.close()]);
  }
}

/** Drops a response body unread (its error, if any, is ours to ignore). */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => undefined);
  body.destroy();
}

function maxAge(cacheControl: string | string[] | undefined): { maxAgeSeconds?: number } {
  const value = Array.isArray(cacheControl) ? cacheControl.join(',') : cacheControl ?? '';
  if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(value)) return { maxAgeSeconds: 0 };
  const m = /(?:^|,)\s*max-age\s*=\s*"?(\d{1,10})"?/i.exec(value);
  return m ? { maxAgeSeconds: Number(m[1]) } : {};
}

/**
 * The public signature keys of a JWK Set document (RFC 7517 §5). Anything else in it (keys
 * for encryption, symmetric keys, key pairs with private members) is left out: it must never
 * verify a client's signature.
 */
export function publicSignatureKeys(text: string): PublicJwk[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new JwksUnavailable('the client\'s jwks_uri did not return JSON');
  }
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new JwksUnavailable('the client\'s jwks_uri did not return a JWK Set');
  return keys
    .filter((k): k is PublicJwk => typeof k === 'object' && k !== null && !Array.isArray(k) && ['EC', 'RSA', 'OKP'].includes((k as PublicJwk).kty))
    .filter((k) => !PRIVATE_MEMBERS.some((m) => m in k) && (k.use === undefined || k.use === 'sig'))
    .slice(0, MAX_KEYS);
}
