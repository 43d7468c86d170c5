import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { type DeliverySettings, deliverySettings } from './delivery/delivery-settings.js';
import { type JwksUriSettings, jwksUriSettings } from './auth/client-keys/jwks-fetcher.js';
// Second factors (MFA): outbound mail of e-mail codes.
import { type MailSettings, mailSettings } from './edge/challenges/mail-settings.js';

/** Server configuration, read once from the environment (every variable is listed in the README). */
export interface Config {
  port: number;
  publicUrl: string;
  dataDir: string;
  bootstrapFile?: string;
  eventStoreUrl?: string;
  mongodbUrl?: string;
  logLevel: 'error' | 'warn' | 'info' | 'debug';
  /** `text`: one line per entry (coloured only on a terminal); `json`: one JSON object per line. */
  logFormat: 'text' | 'json';
  /** Base64 of 32 bytes; when absent, a key is generated once and kept in DATA_DIR/key-encryption.key. */
  keyEncryptionKey?: string;
  /** Whose `X-Forwarded-For` gives the client's address: nobody's (false), or the proxies at these addresses or networks. */
  trustProxy: false | string[];
  /** Limits of the sign-in page and of password hashing (see SignInLimits and PasswordQueue). */
  signIn: SignInSettings;
  /** Back-channel logout delivery: timeouts and retries. */
  delivery: DeliverySettings;
  /** Fetching clients' `jwks_uri`: time and size limits. */
  jwksUri: JwksUriSettings;
  /** Second factors (MFA): how e-mail codes are sent. */
  mail: MailSettings;
  /** Which modules this process serves (`ROLE`): all of them, the traffic plane alone, or all but it. */
  role: Role;
  /** Several processes on one database: the projection runner's lease and the view caches' catch-up. */
  views: ViewSettings;
}

export interface ViewSettings {
  /** `VIEW_SYNC_MS`: how often a process that does not fold the log evicts from its view cache what the folding one changed. */
  syncMs: number;
  /** `PROJECTIONS_LEASE_MS`: the projection runner's lease; a standby takes over this long after its holder stopped renewing. */
  leaseMs: number;
}

export type Role = 'all' | 'edge' | 'central';
const ROLES: readonly string[] = ['edge', 'central'];

/**
 * `ROLE`: unset, the process serves everything. `edge` and `central` split the traffic plane
 * from the rest, which only makes sense with several processes on one store: the embedded
 * store (a SQLite file, locked by one process) cannot be shared, so they need EventStoreDB and
 * MongoDB.
 */
function role(env: NodeJS.ProcessEnv, eventStoreUrl: string | undefined, mongodbUrl: string | undefined): Role {
  const raw = env.ROLE;
  if (raw === undefined || raw === '') return 'all';
  if (!ROLES.includes(raw)) throw new Error(`ROLE must be edge or central (or unset, for everything), got "${raw}"`);
  if (!eventStoreUrl || !mongodbUrl) {
    throw new Error(
      `ROLE=${raw} needs EVENTSTORE_URL and MONGODB_URL: the embedded store (a SQLite file in DATA_DIR) serves one process only, which serves every role; unset ROLE to run everything in this process, or set both URLs to run edges and central apart`,
    );
  }
  return raw as Role;
}

export interface SignInSettings {
  /** Password hashes computed at once (each takes one thread of libuv's pool). */
  hashConcurrency: number;
  /** Password hashes that may wait for a turn; beyond, a sign-in gets 429. */
  hashQueue: number;
  /** Failed sign-ins one username may have before each next one must wait (1 s, 2 s, 4 s, ...). */
  usernameFailures: number;
  /** Failed sign-ins from one address in a window before the address waits for the window's end. */
  addressFailures: number;
  /** Failed sign-ins at one tenant in a window before browsers new to a username wait for the window's end. */
  tenantFailures: number;
  /** The window of the address and tenant counts, in seconds. */
  windowSeconds: number;
  /** The shortest password accepted for a new user. */
  passwordMinLength: number;
}

export const CONFIG = Symbol('CONFIG');

const LEVELS = ['error', 'warn', 'info', 'debug'] as const;

/**
 * The base of every issuer, without a trailing slash. RFC 8414 §2: an issuer is an https URL
 * (http serves development here) without query or fragment, and clients compare it character
 * by character: it must be written as a URL parser writes it (`https://id.example.com`, not
 * `HTTPS://id.example.com:443`).
 */
function publicBase(configured: string | undefined, port: number): string {
  const raw = (configured ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  // Credentials are not repeated in the message: it goes to the log.
  if (url && (url.username || url.password)) throw new Error('PUBLIC_URL must be an absolute http or https URL without query, fragment or credentials; it has credentials');
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.search || url.hash || /[?#]$/.test(raw)) {
    throw new Error(`PUBLIC_URL must be an absolute http or https URL without query, fragment or credentials, got "${configured}"`);
  }
  const canonical = url.href.replace(/\/$/, '');
  if (configured === undefined) return canonical;
  if (canonical !== raw) throw new Error(`PUBLIC_URL must be written as "${canonical}" (issuers are compared character by character), got "${configured}"`);
  return raw;
}

const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One `TRUST_PROXY` entry: an address, a network (address/prefix length) or a named range. */
function proxyEntry(entry: string): boolean {
  if (PROXY_RANGES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/**
 * `TRUST_PROXY`: unset, the client's address is the connection's, and `X-Forwarded-For` is
 * ignored (anyone can write it); or the proxies' addresses. Neither `true` nor a hop count:
 * both trust a connection from anywhere, so a client that reaches the server directly could
 * name its own address.
 */
function trustProxy(raw: string | undefined): Config['trustProxy'] {
  if (!raw) return false;
  const entries = raw.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !proxyEntry(e));
  if (!bad.length) return entries;
  throw new Error(
    `TRUST_PROXY must be a comma-separated list of the proxies' addresses, networks (address/prefix length) or loopback, linklocal, uniquelocal; "${bad[0]}" is none of these`,
  );
}

/** A whole number from the environment, at least `min`, or `fallback` when unset. */
function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be a whole number of at least ${min}, got "${raw}"`);
  return Number(raw);
}

export function signInSettings(env: NodeJS.ProcessEnv = process.env): SignInSettings {
  return {
    // Half the cores (at least one): the rest stay free for token requests, whose signatures also run on libuv's pool.
    hashConcurrency: whole(env, 'PASSWORD_HASH_CONCURRENCY', Math.max(1, Math.floor(availableParallelism() / 2)), 1),
    hashQueue: whole(env, 'PASSWORD_HASH_QUEUE', 16, 0),
    usernameFailures: whole(env, 'SIGNIN_USERNAME_FAILURES', 5, 1),
    addressFailures: whole(env, 'SIGNIN_ADDRESS_FAILURES', 30, 1),
    tenantFailures: whole(env, 'SIGNIN_TENANT_FAILURES', 1000, 1),
    windowSeconds: whole(env, 'SIGNIN_WINDOW', 900, 1),
    passwordMinLength: whole(env, 'PASSWORD_MIN_LENGTH', 8, 1),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got "${env.PORT}"`);
  const publicUrl = publicBase(env.PUBLIC_URL, port);
  const logLevel = (env.LOG_LEVEL ?? 'info') as Config['logLevel'];
  if (!LEVELS.includes(logLevel)) throw new Error(`LOG_LEVEL must be one of ${LEVELS.join(', ')}`);
  const logFormat = (env.LOG_FORMAT || 'text') as Config['logFormat'];
  if (logFormat !== 'text' && logFormat !== 'json') throw new Error('LOG_FORMAT must be text or json');
  return {
    port,
    publicUrl,
    dataDir: resolve(env.DATA_DIR ?? './data'),
    bootstrapFile: env.BOOTSTRAP_FILE || undefined,
    eventStoreUrl: env.EVENTSTORE_URL || undefined,
    mongodbUrl: env.MONGODB_URL || undefined,
    logLevel,
    logFormat,
    keyEncryptionKey: env.KEY_ENCRYPTION_KEY || undefined,
    trustProxy: trustProxy(env.TRUST_PROXY),
    signIn: signInSettings(env),
    delivery: deliverySettings(env),
    jwksUri: jwksUriSettings(env),
    role: role(env, env.EVENTSTORE_URL || undefined, env.MONGODB_URL || undefined),
    mail: mailSettings(env),
    views: { syncMs: whole(env, 'VIEW_SYNC_MS', 1000, 10), leaseMs: whole(env, 'PROJECTIONS_LEASE_MS', 15000, 1000) },
  };
}
