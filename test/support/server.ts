import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { usePasswordHashTestCost } from '../../src/infrastructure/crypto/hashing.js';
import { Clock } from '../../src/infrastructure/nest/clock.js';

/** A confidential, first-party client used by most end-to-end tests. */
export const WEB_SECRET = 'web-secret-0123456789-0123456789-abcdef';
export const THIRD_SECRET = 'third-party-secret-0123456789-0123456789';
export const SERVICE_SECRET = 'service-secret-0123456789-0123456789-xyz';
export const REDIRECT = 'http://127.0.0.1:9999/cb';
export const ALICE_PASSWORD = 'correct horse battery staple';

/**
 * One tenant with a web client, public clients, one without refresh tokens (`coded`), a
 * third-party client, a service client and two users; a second one, also baseline.
 */
export const BOOTSTRAP_YAML = `
tenants:
  - id: acme
    security_profile: baseline
    access_token_ttl: 300
    clients:
      - client_id: web
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        post_logout_redirect_uris: ["http://127.0.0.1:9999/bye"]
        grant_types: [authorization_code, refresh_token]
        scope: "openid profile email offline_access"
        token_endpoint_auth_method: client_secret_basic
        first_party: true
      - client_id: spa
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code, refresh_token]
        scope: "openid profile offline_access"
        token_endpoint_auth_method: none
        first_party: true
      - client_id: spa-rs
        redirect_uris: ["${REDIRECT}"]
        post_logout_redirect_uris: ["http://127.0.0.1:9999/bye"]
        grant_types: [authorization_code, refresh_token]
        scope: "openid offline_access"
        token_endpoint_auth_method: none
        first_party: true
        id_token_signed_response_alg: RS256
      - client_id: coded
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid profile offline_access"
        first_party: true
      - client_id: third
        client_name: Third Party App
        client_secret: "${THIRD_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid email"
        token_endpoint_auth_method: client_secret_post
      - client_id: service
        client_secret: "${SERVICE_SECRET}"
        grant_types: [client_credentials]
        scope: "orders:read orders:write"
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
        email: alice@example.com
        email_verified: true
        name: Alice Liddell
        given_name: Alice
        family_name: Liddell
      - username: bob
        password: "bob's long password"
        name: Bob
  - id: other
    security_profile: baseline
    clients:
      - client_id: web
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code, refresh_token, client_credentials]
        scope: "openid"
`;

/**
 * One more tenant for BOOTSTRAP_YAML's list: its `settings` (e.g. `{ access_token_ttl: 2 }`),
 * the first-party client `web` (code, refresh tokens, `openid offline_access`), the YAML of
 * any other clients, and the user alice.
 */
export function extraTenant(id: string, settings: Record<string, number>, clients = ''): string {
  return `
  - id: ${id}
${Object.entries(settings).map(([k, v]) => `    ${k}: ${v}\n`).join('')}    clients:
      - client_id: web
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code, refresh_token]
        scope: "openid offline_access"
        first_party: true${clients}
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"`;
}

/**
 * The server's clock, under the test's control: it follows the wall clock until frozen, and
 * moves only when told while frozen, so that a test of waits and windows does not depend on how
 * fast the machine runs it.
 */
export class TestClock extends Clock {
  private frozenAt?: number;
  private offset = 0;

  now(): Date {
    return new Date(this.frozenAt ?? Date.now() + this.offset);
  }

  /** Stops time where it is. */
  freeze(): void {
    this.frozenAt ??= Date.now() + this.offset;
  }

  /** Moves time on by `ms` (frozen or not). */
  advance(ms: number): void {
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offset += ms;
  }

  /** Lets time run again from where it stands. */
  release(): void {
    if (this.frozenAt === undefined) return;
    this.offset = this.frozenAt - Date.now();
    this.frozenAt = undefined;
  }
}

export interface TestServer {
  app: NestFastifyApplication;
  clock: TestClock;
  baseUrl: string;
  dataDir: string;
  issuer(tenant?: string): string;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts the whole server in this process on a free port, with a fresh data directory and the
 * bootstrap above. `seed` may write into the data directory first (a log left by an older
 * version, say); `publicUrl` replaces the server's own address as PUBLIC_URL (an https one, as
 * behind a TLS-terminating proxy, while the tests still speak http to the server); `env` sets
 * more environment variables (settings) for it; `host` names the server's address in place of 127.0.0.1.
 */
export async function startTestServer(
  bootstrap = BOOTSTRAP_YAML,
  options: { trustProxy?: string[]; seed?: (dataDir: string) => Promise<void>; publicUrl?: string; env?: Record<string, string>; host?: string } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'authserver-e2e-'));
  const file = join(dataDir, 'bootstrap.yaml');
  writeFileSync(file, bootstrap);
  await options.seed?.(dataDir);
  const port = await freePort();
  // `host: 'localhost'` for WebAuthn in a browser: an IP address cannot be an RP ID, and plain http is a secure context on localhost only.
  const baseUrl = `http://${options.host ?? '127.0.0.1'}:${port}`;
  Object.assign(process.env, { PORT: String(port), PUBLIC_URL: options.publicUrl ?? baseUrl, DATA_DIR: dataDir, BOOTSTRAP_FILE: file, LOG_LEVEL: 'error', ...options.env });
  // Sign-ins cost scrypt at N = 2^10 here, not 2^15: the suite tests what is hashed and checked, not how slowly.
  usePasswordHashTestCost();
  const { startServer } = await import('../../src/server.js');
  const app = await startServer({ logLevel: 'error', logFormat: 'text', trustProxy: options.trustProxy ?? false });
  // Every part of the server holds the one Clock instance: from here on it tells the test's time.
  const clock = new TestClock();
  app.get(Clock).now = () => clock.now();
  return {
    app,
    clock,
    baseUrl,
    dataDir,
    issuer: (tenant = 'acme') => `${baseUrl}/${tenant}`,
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
