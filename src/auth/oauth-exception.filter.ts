import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError } from '../domain/shared/domain-error.js';
import { escapeHtml, formPostPage, page } from '../shared/html.js';
import {
  BearerRequired,
  InsufficientScope,
  InvalidClient,
  InvalidRequest,
  InvalidToken,
  NotFound,
  OAuthError,
  RedirectableError,
  ServerError,
  TemporarilyUnavailable,
  UserFacingError,
} from './oauth-errors.js';
import { WrongExpectedRevisionError } from '../infrastructure/event-store/event-store.port.js';
import { ProjectionLagError } from '../infrastructure/read-store/projection-runner.js';

/**
 * Renders every error (rule 8): JSON per RFC 6749 §5.2, a redirect per §4.1.2.1, an HTML page
 * for errors that must not reach an untrusted redirect URI, `WWW-Authenticate` per RFC 6750.
 * Anything unexpected becomes `server_error` without internals.
 */
@Catch()
export class OAuthExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof RedirectableError) return this.redirect(reply, exception);
    if (exception instanceof UserFacingError) {
      const e = exception.error;
      reply.status(e.status).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store');
      reply.send(page('Request rejected', `<h1>Request rejected</h1><p class="error">${escapeHtml(e.code)}: ${escapeHtml(e.description ?? '')}</p>`));
      return;
    }
    const error = this.toOAuthError(exception);
    reply.status(error.status).header('cache-control', 'no-store');
    if (error instanceof InvalidClient && error.usedHeader) reply.header('www-authenticate', 'Basic realm="token", charset="UTF-8"');
    if (error instanceof BearerRequired) {
      // RFC 6750 §3.1: a request without any token gets the bare challenge and no error information.
      reply.header('www-authenticate', 'Bearer').send();
      return;
    }
    if (error instanceof InvalidToken || error instanceof InsufficientScope) {
      reply.header('www-authenticate', `Bearer error="${error.code}"${error.description ? `, error_description="${error.description}"` : ''}`);
    }
    reply.send(error.description ? { error: error.code, error_description: error.description } : { error: error.code });
  }

  private redirect(reply: FastifyReply, e: RedirectableError): void {
    const { redirectUri, responseMode, state, iss } = e.redirect;
    const fields = { error: e.error.code, error_description: e.error.description, state, iss };
    reply.header('cache-control', 'no-store');
    if (responseMode === 'form_post') {
      reply.status(200).header('content-type', 'text/html; charset=utf-8').send(formPostPage(redirectUri, fields));
      return;
    }
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) url.searchParams.set(k, v);
    reply.redirect(url.href, 302);
  }

  private toOAuthError(exception: unknown): OAuthError {
    if (exception instanceof OAuthError) return exception;
    if (exception instanceof DomainError) {
      return exception.code === 'not_found' ? new NotFound(exception.message) : new InvalidRequest(exception.message);
    }
    if (exception instanceof ProjectionLagError || exception instanceof WrongExpectedRevisionError) return new TemporarilyUnavailable('the server is busy; retry shortly');
    const status = exception instanceof HttpException ? exception.getStatus() : (exception as { statusCode?: number })?.statusCode;
    if (status === 404) return new NotFound('no such endpoint');
    if (status === 405) return new InvalidRequest('method not allowed');
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return new InvalidRequest(status === 413 ? 'request body too large' : status === 415 ? 'unsupported content type' : 'malformed request');
    }
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    return new ServerError();
  }
}
