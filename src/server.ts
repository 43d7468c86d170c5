import 'reflect-metadata';
import { ConsoleLogger, type INestApplication, Logger, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';
import { applyCors } from './auth/cors.js';
import { RouteMethods } from './auth/route-methods.js';
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

/** Builds the application (one process serving auth, central and edge), applies the bootstrap and listens. */
export async function startServer({
  logLevel,
  logFormat,
  trustProxy = false,
}: Pick<Config, 'logLevel' | 'logFormat'> & Partial<Pick<Config, 'trustProxy'>> = { logLevel: 'info', logFormat: 'text' }): Promise<NestFastifyApplication> {
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
  // A provider that fails at start-up throws to the caller (main.ts says why in one line) instead of Nest's stack trace and exit.
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, adapter, { logger, abortOnError: false });
  app.useBodyParser('application/x-www-form-urlencoded', undefined, parseFormBody);
  const fastify = app.getHttpAdapter().getInstance();
  const routes = new RouteMethods();
  fastify.addHook('onRoute', (route) => routes.add(route.url, route.method));
  app.useGlobalFilters(new OAuthExceptionFilter(routes));
  // One hook for what every request needs first (each hook costs every request a little).
  fastify.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
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
  // The signals that ask for a stop. Not the faults (SIGBUS, SIGSEGV, ...), which Nest's default
  // list also traps: a thread that faulted, say on a memory-mapped file cut short under it,
  // would fault again and again while a shutdown that cannot finish hung the process for good.
  const stopSignals = ['SIGTERM', 'SIGINT', 'SIGHUP'];
  app.enableShutdownHooks(stopSignals);
  // A second signal while the stop waits (for a request still arriving, up to the idle
  // timeout) ends the process at once; the store recovers at the next start, as after kill -9.
  let stopping = false;
  const stopNow = (signal: NodeJS.Signals) => {
    if (stopping) {
      new Logger('Server').warn(`${signal} again: stopping at once, without waiting for the requests under way`);
      process.exit(1);
    }
    stopping = true;
  };
  for (const signal of stopSignals) process.on(signal, stopNow);
  fastify.addHook('onClose', (_instance, done) => {
    clearInterval(sweeper);
    for (const signal of stopSignals) process.off(signal, stopNow);
    done();
  });
  await app.init();
  await app.get(BootstrapService).run();
  const config = app.get<Config>(CONFIG);
  await app.listen(config.port, '0.0.0.0');
  return app;
}

export async function stopServer(app: INestApplication): Promise<void> {
  await app.close();
}

/** Why a request's Host is wrong, if it is: HTTP/1.1 needs exactly one (RFC 9112 §3.2). */
function misplacedHost(raw: IncomingMessage): string | undefined {
  if (raw.headers.host === undefined) return raw.httpVersionMajor === 1 && raw.httpVersionMinor === 0 ? undefined : 'the Host header is required';
  return headerLines(raw, 'host') > 1 ? 'send a single Host header' : undefined;
}
