import 'reflect-metadata';
import { ConsoleLogger, type INestApplication, Logger, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';
import { applyCors } from './auth/cors.js';
import { recordRoutes, RouteMethods } from './auth/route-methods.js';
import { clientError, frameworkError, OAuthExceptionFilter, unmetExpectation } from './auth/oauth-exception.filter.js';
import { BootstrapService } from './central/bootstrap/bootstrap.service.js';
import { CONFIG, type Config } from './config.js';
import { uuidV7 } from './infrastructure/crypto/hashing.js';
import type { IncomingMessage } from 'node:http';
import { InvalidRequest } from './auth/oauth-errors.js';
import { headerLines } from './auth/form-request.js';
import { parseFormBody, parseQuery } from './auth/urlencoded.js';

const LOG_LEVELS: Record<Config['logLevel'], LogLevel[]> = {
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

/**
 * A connection on which nothing moves for this long is closed, so a client that stops in the
 * middle of its body cannot hold a socket for ever. (Node 20's `requestTimeout` left such a
 * connection open when tried here.) No request here waits that long for the server.
 */
const IDLE_TIMEOUT_MS = 30_000;

/** A year, the usual HSTS lifetime; subdomains are not named: they may be other services. */
const HSTS_MAX_AGE = 31_536_000;

/**
 * Builds the application (the modules of `role`: by default one process serving auth, central
 * and edge), applies the bootstrap (not on an edge: it only reads configuration) and listens.
 */
export async function startServer({
  logLevel,
  logFormat,
  trustProxy = false,
  role = 'all',
}: Pick<Config, 'logLevel' | 'logFormat'> & Partial<Pick<Config, 'trustProxy' | 'role'>> = { logLevel: 'info', logFormat: 'text' }): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    // The client's address that events record (see request-origin.ts).
    trustProxy,
    bodyLimit: 64 * 1024,
    connectionTimeout: IDLE_TIMEOUT_MS,
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    // Every request gets an id of its own (never taken from the request): the events it causes
    // carry it as their correlation id, and the answer names it in `X-Request-Id`.
    genReqId: () => uuidV7(),
    // HEAD only where a controller declares it (metadata, JWKS, whose GET changes nothing a
    // client sees: at most it makes a tenant's missing keys, as any first use does): Fastify
    // would answer HEAD with the GET handler, side effects included, and a GET of /authorize
    // issues a code, one of /logout ends a session (HEAD is safe, RFC 9110 §9.3.2). Elsewhere
    // HEAD is answered 405 with the methods the path takes.
    exposeHeadRoutes: false,
    // While the server drains after SIGTERM, a request that still arrives on an open connection
    // is served (with `Connection: close`), not refused with Fastify's own 503 body, which is
    // no OAuth error; the store closes only after the last answer.
    return503OnClosing: false,
    // Queries and form bodies are read strictly (see urlencoded.ts).
    routerOptions: { querystringParser: parseQuery },
    // A request without Host is refused by the hook below, as an OAuth error, not by Node's bare 400.
    http: { requireHostHeader: false },
  });
  // Colour codes only for a terminal: a log collector would keep them as text.
  const logger = new ConsoleLogger({ logLevels: LOG_LEVELS[logLevel], json: logFormat === 'json', colors: logFormat === 'text' && process.stdout.isTTY === true && !process.env.NO_COLOR });
  // A provider that fails at start-up throws to the caller (main.ts ends the log with why) instead of Nest's process.abort().
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRole(role), adapter, { logger, abortOnError: false });
  app.useBodyParser('application/x-www-form-urlencoded', undefined, parseFormBody);
  // The admin API's PATCH bodies (RFC 7396), parsed as JSON is, prototype keys refused.
  const json = app.getHttpAdapter().getInstance().getDefaultJsonParser('error', 'error');
  app.getHttpAdapter().getInstance().addContentTypeParser('application/merge-patch+json', { parseAs: 'string' }, json);
  const fastify = app.getHttpAdapter().getInstance();
  const routes = new RouteMethods();
  fastify.addHook('onRoute', (route) => routes.add(route.url, route.method));
  recordRoutes(app, routes);
  app.useGlobalFilters(new OAuthExceptionFilter(routes));
  // Behind https (a TLS-terminating proxy; this server speaks plain HTTP and redirects nothing
  // itself), browsers are told to use https only (RFC 6797 §7.1).
  const hsts = app.get<Config>(CONFIG).publicUrl.startsWith('https:') ? `max-age=${HSTS_MAX_AGE}` : undefined;
  // One hook for what every request needs first (each hook costs every request a little).
  fastify.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id).header('x-content-type-options', 'nosniff');
    if (hsts) reply.header('strict-transport-security', hsts);
    const hostError = misplacedHost(req.raw);
    if (hostError) return done(new InvalidRequest(hostError));
    if (!applyCors(req, reply)) done();
  });
  fastify.server.on('checkExpectation', unmetExpectation);
  // Closing, the HTTP server closes the connections idle at that moment, and waits for the
  // others. A connection whose request was under way is left open once answered (keep-alive),
  // and would hold the exit back for the whole keep-alive timeout: the idle ones are closed
  // again every 50 ms until the server is closed.
  let sweeper: NodeJS.Timeout | undefined;
  fastify.addHook('preClose', (done) => {
    sweeper ??= setInterval(() => fastify.server.closeIdleConnections(), 50).unref();
    done();
  });
  const release = stopOnSignals(app);
  fastify.addHook('onClose', (_instance, done) => {
    clearInterval(sweeper);
    release();
    done();
  });
  try {
    await app.init();
    if (role !== 'edge') await app.get(BootstrapService).run();
    await app.listen(app.get<Config>(CONFIG).port, '0.0.0.0');
  } catch (error) {
    // Nothing half-started stays behind: the store, its lock and its threads are let go.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

/**
 * SIGTERM, SIGINT and SIGHUP stop the server gracefully, and the signal is then raised again
 * for its default action; a second one while the stop waits (for a request still arriving, up
 * to the idle timeout, or a store that does not close) ends the process at once, and the store
 * recovers at the next start as after kill -9. No other signal is trapped: not the faults
 * (SIGBUS, SIGSEGV), which Nest's `enableShutdownHooks()` traps by default (a thread that
 * faulted on the store's memory map, cut short under it, faulted again and again while a stop
 * that could not finish hung the process for good). Returns what lets the signals go, for a
 * stop that is not a signal's.
 */
function stopOnSignals(app: INestApplication): () => void {
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
  let stopping = false;
  const release = () => {
    if (!stopping) for (const signal of signals) process.off(signal, onSignal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    const log = new Logger('Server');
    if (stopping) {
      log.warn(`${signal} again: stopping at once, without waiting for the requests under way`);
      process.exit(1);
    }
    stopping = true;
    app.close().then(
      () => {
        for (const s of signals) process.off(s, onSignal);
        process.kill(process.pid, signal);
      },
      (error: unknown) => {
        log.error(`the stop failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return release;
}

export async function stopServer(app: INestApplication): Promise<void> {
  await app.close();
}

/** Why a request's Host is wrong, if it is: HTTP/1.1 needs exactly one (RFC 9112 §3.2). */
function misplacedHost(raw: IncomingMessage): string | undefined {
  if (raw.headers.host === undefined) return raw.httpVersionMajor === 1 && raw.httpVersionMinor === 0 ? undefined : 'the Host header is required';
  return headerLines(raw, 'host') > 1 ? 'send a single Host header' : undefined;
}
