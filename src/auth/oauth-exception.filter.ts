import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type IncomingMessage, maxHeaderSize, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { DomainError } from '../domain/shared/domain-error.js';
import { uuidV7 } from '../infrastructure/crypto/hashing.js';
import { formPostPage, render } from '../shared/html.js';
import { builtInContext } from '../edge/pages/page-contexts.js';
import {
  BearerRequired,
  DpopChallenge,
  UseDpopNonce,
  ContentTooLarge,
  InvalidBearerRequest,
  InsufficientScope,
  InvalidClient,
  InvalidRequest,
  InvalidToken,
  MethodNotAllowed,
  NotFound,
  OAuthError,
  RedirectableError,
  ServerError,
  storeError,
  UserFacingError,
} from './oauth-errors.js';
import type { RouteMethods } from './route-methods.js';
import { withResponseParams } from '../domain/client/redirect-uri.js';
import { originSource, sendFlowResult } from './authorize/flow-result.js';
import { Problem, sendProblem, toProblem } from '../central/http/problem.js';

/** The admin API's routes: their errors are RFC 9457 problems (central/http/problem.ts). */
const ADMIN_ROUTE = /^(?:\/[^/]+)?\/configuration(?:\/|$)|^\/[^/]+\/users\/registrations$/;

/** Routes a browser opens (the authorization endpoint and the pages it leads to): their errors are pages, never JSON. */
const BROWSER_ROUTE = /\/(authorize|login|consent|logout|register)$/;
/** The authorization challenge endpoint of native apps answers JSON, though its path ends as /authorize's. */
const NATIVE_ROUTE = /\/native\/authorize$/;

/** The HTML page of an error that is shown to the user and never sent to a client. */
function sendErrorPage(reply: FastifyReply, e: OAuthError): void {
  // In a language of the built-in catalogues (the tenant's own texts are not read on the error path).
  const req = reply.request;
  const uiLocales = (req.query as Record<string, unknown> | undefined)?.ui_locales;
  const accept = req.headers['accept-language'];
  const ctx = builtInContext(typeof uiLocales === 'string' ? uiLocales : undefined, typeof accept === 'string' ? accept : undefined);
  sendFlowResult(reply, { kind: 'html', status: e.status, body: render('error', 'error.title', { code: e.code, description: e.description ?? '' }, ctx) });
}

/**
 * Errors Fastify raises before any route runs (a path that is not valid percent-encoding, a
 * path segment too long to be a tenant), answered like the errors of the routes.
 */
export function frameworkError(error: { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
  // No hook has run for this request: it names its id here.
  reply.header('x-request-id', request.id);
  sendError(reply, error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? new NotFound('no such endpoint') : new InvalidRequest('malformed URL'));
}

/** How long a connection Node's parser gave up on stays open after its answer, to take in what the client still sends. */
const CLIENT_ERROR_LINGER_MS = 2000;

const CLIENT_ERRORS: Record<string, [status: string, description: string]> = {
  HPE_HEADER_OVERFLOW: ['431 Request Header Fields Too Large', 'request headers too large'],
  ERR_HTTP_REQUEST_TIMEOUT: ['408 Request Timeout', 'the request did not arrive in time'],
};

/** An error Node's HTTP server answers, below any route or framework: JSON, no-store, an id of its own, the connection closed. */
function nodeLevelError(description: string): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ error: 'invalid_request', error_description: description });
  return { body, headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-store', 'X-Request-Id': uuidV7(), Connection: 'close' } };
}

/**
 * Whether the headers overflowed in the request line, as far as the chunk Node was parsing
 * tells: it starts a request (a method, a space and the start of a target) whose first line
 * does not end within the header limit. A URL that arrived in several reads, or behind another
 * request on the connection, is not seen so (431 then).
 */
function requestLineTooLong(raw: unknown): boolean {
  if (!Buffer.isBuffer(raw) || !/^[A-Z]+ (?:\/|\*|[A-Za-z][A-Za-z0-9+.-]*:)/.test(raw.subarray(0, 64).toString('latin1'))) return false;
  const end = raw.indexOf(10);
  return end < 0 || end >= maxHeaderSize;
}

/** Requests Node's HTTP server rejects (malformed syntax, headers too large or too slow): no route, no framework, only the socket. */
export function clientError(error: { code?: string; rawPacket?: unknown }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || socket.writableEnded) return;
  // RFC 9112 §3: a request-target longer than the server will parse is 414.
  const [status, description] =
    error.code === 'HPE_HEADER_OVERFLOW' && requestLineTooLong(error.rawPacket)
      ? ['414 URI Too Long', 'the request URL is too long']
      : (CLIENT_ERRORS[error.code ?? ''] ?? ['400 Bad Request', 'malformed HTTP request']);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { body, headers } = nodeLevelError(description);
  socket.end(`HTTP/1.1 ${status}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n${body}`);
  // What the client is still sending (the rest of a long URL, say) is read and dropped for a
  // moment: closing with it unread would reset the connection, and the client could lose the
  // answer before reading it.
  socket.resume();
  setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
}

/** An Expect other than 100-continue (Node's 'checkExpectation'), answered 417 (RFC 9110 §10.1.1) like the errors above. */
export function unmetExpectation(_req: IncomingMessage, res: ServerResponse): void {
  const { body, headers } = nodeLevelError('the only expectation met is 100-continue');
  res.writeHead(417, headers).end(body);
}

/** JSON per RFC 6749 §5.2 with the challenges of RFC 6749 §5.2 and RFC 6750 §3. */
function sendError(reply: FastifyReply, error: OAuthError): void {
  reply.status(error.status).header('cache-control', 'no-store');
  if (error instanceof InvalidClient) reply.header('www-authenticate', 'Basic realm="token", charset="UTF-8"');
  if (error instanceof BearerRequired) {
    // RFC 6750 §3.1: a request without any token gets the bare challenge and no error information.
    reply.header('www-authenticate', 'Bearer').send();
    return;
  }
  if (error instanceof InvalidToken || error instanceof InsufficientScope || error instanceof InvalidBearerRequest) {
    reply.header('www-authenticate', `Bearer error="${error.code}"${error.description ? `, error_description="${error.description}"` : ''}`);
  }
  // RFC 9449 §7.1, §8, §9: the DPoP challenge, and the nonce to use next.
  if (error instanceof UseDpopNonce) reply.header('dpop-nonce', error.nonce);
  if (error instanceof DpopChallenge || (error instanceof UseDpopNonce && error.status === 401)) {
    reply.header('www-authenticate', `DPoP error="${error.code}"${error.description ? `, error_description="${error.description}"` : ''}, algs="${(error.algs ?? []).join(' ')}"`);
  }
  reply.send(error.description ? { error: error.code, error_description: error.description } : { error: error.code });
}

/**
 * Renders every error (rule 8): JSON per RFC 6749 §5.2, a redirect per §4.1.2.1, an HTML page
 * for errors that must not reach an untrusted redirect URI (and for any error of a page a
 * browser opens), `WWW-Authenticate` per RFC 6750. Anything unexpected becomes
 * `server_error` without internals.
 */
@Catch()
export class OAuthExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  /** `routes`: what each path accepts, to tell a wrong method (405) from an unknown path (404). */
  constructor(private readonly routes?: RouteMethods) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof RedirectableError) return this.redirect(reply, exception);
    if (exception instanceof UserFacingError) return sendErrorPage(reply, exception.error);
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    if (ADMIN_ROUTE.test(request.routeOptions?.url ?? request.url.split('?')[0])) return this.problem(request, reply, exception);
    let error = this.toOAuthError(exception);
    // A request that matched no route (a wrong method, say) is judged by its path first,
    // whatever went wrong on the way (its body may not even parse).
    const matched = request.routeOptions?.url;
    const route = matched ?? request.url.split('?')[0];
    if (matched === undefined) {
      const allow = this.routes?.allowed(route) ?? [];
      if (allow.length && !allow.includes(request.method)) error = new MethodNotAllowed(allow);
    }
    if (error instanceof MethodNotAllowed) reply.header('allow', error.allow.join(', '));
    if (BROWSER_ROUTE.test(route) && !NATIVE_ROUTE.test(route)) return sendErrorPage(reply, error);
    sendError(reply, error);
  }

  private problem(request: FastifyRequest, reply: FastifyReply, exception: unknown): void {
    let problem = toProblem(exception, (e) => this.logger.error(e instanceof Error ? (e.stack ?? e.message) : String(e)));
    if (request.routeOptions?.url === undefined) {
      const allow = this.routes?.allowed(request.url.split('?')[0]) ?? [];
      if (allow.length && !allow.includes(request.method)) problem = new Problem(405, 'Method Not Allowed', `use ${allow.join(', ')}`, {}, { allow: allow.join(', ') });
    }
    sendProblem(reply, problem);
  }

  private redirect(reply: FastifyReply, e: RedirectableError): void {
    const { redirectUri, responseMode, state, iss, cookies, response } = e.redirect;
    const fields = response !== undefined ? { response } : { error: e.error.code, error_description: e.error.description, state, iss };
    if (responseMode === 'form_post') return sendFlowResult(reply, { kind: 'html', status: 200, body: formPostPage(redirectUri, fields), cookies, framable: true, formAction: originSource(redirectUri) });
    sendFlowResult(reply, { kind: 'redirect', location: withResponseParams(redirectUri, fields), cookies });
  }

  private toOAuthError(exception: unknown): OAuthError {
    if (exception instanceof OAuthError) return exception;
    if (exception instanceof DomainError) {
      return exception.code === 'not_found' ? new NotFound(exception.message) : new InvalidRequest(exception.message);
    }
    const failure = storeError(exception);
    if (failure) return failure;
    const status = exception instanceof HttpException ? exception.getStatus() : (exception as { statusCode?: number })?.statusCode;
    if (status === 404) return new NotFound('no such endpoint');
    if (status === 413) return new ContentTooLarge('request body too large');
    if (typeof status === 'number' && status >= 400 && status < 500) return new InvalidRequest(status === 415 ? 'unsupported content type' : 'malformed request');
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    return new ServerError();
  }
}
