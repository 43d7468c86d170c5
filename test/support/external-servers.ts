/**
 * Where the external servers of the contract suites are: the URL in EVENTSTORE_URL or
 * MONGODB_URL when set, otherwise a throw-away container started with testcontainers, or
 * a reason to skip when no container runtime can be reached.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface ExternalServer {
  url: string;
  stop(): Promise<void>;
}

export type Skipped = { skip: string };

export const EVENTSTORE_IMAGE = 'eventstore/eventstore:24.10';
export const MONGO_IMAGE = 'mongo:7';
const RUNTIME_MISSING = 'Could not find a working container runtime strategy';
const STARTUP_TIMEOUT_MS = 120_000;

let runtimeVerdict: string | null | undefined;

/**
 * Synchronous: undefined when a container runtime answers (or is configured in a way this
 * probe cannot check), otherwise why not. Lets a suite decide what to register before jest
 * collects it, without loading testcontainers.
 */
export function containerRuntimeMissing(): string | undefined {
  if (runtimeVerdict === undefined) runtimeVerdict = probeRuntime() ?? null;
  return runtimeVerdict ?? undefined;
}

function probeRuntime(): string | undefined {
  const dockerHost = process.env.DOCKER_HOST;
  if (dockerHost?.startsWith('tcp://') && !process.env.DOCKER_TLS_VERIFY) {
    const { hostname, port } = new URL(dockerHost);
    return ping({ host: hostname, port: Number(port || 2375) }) ? undefined : `no container runtime (DOCKER_HOST ${dockerHost} does not answer)`;
  }
  if (dockerHost && !dockerHost.startsWith('unix://')) return undefined;
  if (existsSync(join(homedir(), '.testcontainers.properties'))) return undefined;
  const candidates = dockerHost
    ? [dockerHost.slice('unix://'.length)]
    : [
        '/var/run/docker.sock',
        ...(process.env.XDG_RUNTIME_DIR ? [join(process.env.XDG_RUNTIME_DIR, 'docker.sock')] : []),
        join(homedir(), '.docker', 'run', 'docker.sock'),
        join(homedir(), '.docker', 'desktop', 'docker.sock'),
        ...(typeof process.getuid === 'function' ? [`/run/user/${process.getuid()}/docker.sock`] : []),
      ];
  const present = candidates.filter((p) => existsSync(p));
  if (present.length === 0) return `no container runtime (no Docker socket at ${candidates.join(', ')})`;
  for (const socketPath of present) if (ping({ socketPath })) return undefined;
  return `no container runtime (Docker socket ${present.join(', ')} does not answer)`;
}

/** GET /_ping on the Docker API, in a child process so that the answer is synchronous. */
function ping(target: { socketPath: string } | { host: string; port: number }): boolean {
  const options = JSON.stringify({ ...target, path: '/_ping', timeout: 2000 });
  const script = `require('node:http').get(${options}, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1)).on('timeout', () => process.exit(1));`;
  const result = spawnSync(process.execPath, ['--input-type=commonjs', '-e', script], { timeout: 5000, stdio: 'ignore' });
  return result.status === 0;
}

/** Whether the EventStoreDB contract can run: env var, or a container runtime to start one. */
export function eventStoreAvailability(): Skipped | { available: true } {
  if (process.env.EVENTSTORE_URL) return { available: true };
  const missing = containerRuntimeMissing();
  return missing ? { skip: `EVENTSTORE_URL not set and ${missing}` } : { available: true };
}

/** Whether the MongoDB contract can run: env var, or a container runtime to start one. */
export function mongoAvailability(): Skipped | { available: true } {
  if (process.env.MONGODB_URL) return { available: true };
  const missing = containerRuntimeMissing();
  return missing ? { skip: `MONGODB_URL not set and ${missing}` } : { available: true };
}

function skipReason(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  return message.includes(RUNTIME_MISSING) ? `no container runtime (testcontainers: ${RUNTIME_MISSING})` : undefined;
}

/** EventStoreDB: EVENTSTORE_URL, or a single in-memory insecure node in a container. */
export async function externalEventStore(): Promise<ExternalServer | Skipped> {
  const url = process.env.EVENTSTORE_URL;
  if (url) return { url, stop: async () => undefined };
  try {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer(EVENTSTORE_IMAGE)
      .withCommand(['--insecure', '--run-projections=None'])
      .withEnvironment({ EVENTSTORE_INSECURE: 'true', EVENTSTORE_MEM_DB: 'true' })
      .withExposedPorts(2113)
      .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCodeMatching((code) => code >= 200 && code < 300))
      .withStartupTimeout(STARTUP_TIMEOUT_MS)
      .start();
    const server = {
      url: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
      stop: async () => {
        await container.stop();
      },
    };
    try {
      await waitForEventStore(server.url);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  } catch (error) {
    const skip = skipReason(error);
    if (skip) return { skip };
    throw error;
  }
}

/** Live is not yet leader: waits until a read of $all succeeds. */
async function waitForEventStore(url: string): Promise<void> {
  const { EventStoreDBClient, START } = await import('@eventstore/db-client');
  const client = EventStoreDBClient.connectionString(url);
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      try {
        for await (const _ of client.readAll({ fromPosition: START, maxCount: 1 })) break;
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    await client.dispose();
  }
}

/** MongoDB: MONGODB_URL, or a one-member replica set in a container (transactions need one). */
export async function externalMongo(): Promise<ExternalServer | Skipped> {
  const url = process.env.MONGODB_URL;
  if (url) return { url, stop: async () => undefined };
  try {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer(MONGO_IMAGE)
      .withCommand(['--replSet', 'rs0', '--bind_ip_all'])
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .withStartupTimeout(STARTUP_TIMEOUT_MS)
      .start();
    const stop = async () => {
      await container.stop();
    };
    try {
      const init = await container.exec([
        'mongosh',
        '--quiet',
        '--eval',
        "rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'localhost:27017' }] })",
      ]);
      if (init.exitCode !== 0) throw new Error(`rs.initiate failed: ${init.output}`);
      const deadline = Date.now() + 60_000;
      for (;;) {
        const hello = await container.exec(['mongosh', '--quiet', '--eval', 'db.hello().isWritablePrimary']);
        if (hello.stdout.trim() === 'true') break;
        if (Date.now() > deadline) throw new Error(`replica set has no primary: ${hello.output}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    } catch (error) {
      await stop();
      throw error;
    }
    return { url: `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`, stop };
  } catch (error) {
    const skip = skipReason(error);
    if (skip) return { skip };
    throw error;
  }
}
