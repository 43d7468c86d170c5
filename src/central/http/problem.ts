import { HttpException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError, type DomainErrorCode } from '../../domain/shared/domain-error.js';
import { OAuthError, storeError } from '../../auth/oauth-errors.js';
import { WrongExpectedRevisionError } from '../../infrastructure/event-store/event-store.port.js';

/** One field that failed validation: where it is in the body (`redirect_uris[0]`) and why. */
export interface FieldError {
  path: string;
  detail: string;
}

/**
 * An error of the admin API, rendered as RFC 9457 `application/problem+json`. `type` stays
 * `about:blank` (the status says what happened); `errors` lists the fields at fault.
 */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail?: string,
    readonly extensions: { errors?: FieldError[]; error?: string } = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? title);
    this.name = 'Problem';
  }
}

/** RFC 6750 §3: the challenge of a bearer-protected resource, with its error when there is one. */
function challenge(error?: string, description?: string, scope?: string): string {
  if (!error) return 'Bearer';
  const parts = [`error="${error}"`];
  if (description) parts.push(`error_description="${description.replace(/["\\]/g, '')}"`);
  if (scope) parts.push(`scope="${scope}"`);
  return `Bearer ${parts.join(', ')}`;
}

export const problems = {
  /** RFC 6750 §3.1: no token at all gets the bare challenge. */
  tokenRequired: () => new Problem(401, 'Unauthorized', 'an access token is required in the Authorization header', {}, { 'www-authenticate': challenge() }),
  invalidToken: (detail: string) => new Problem(401, 'Unauthorized', detail, { error: 'invalid_token' }, { 'www-authenticate': challenge('invalid_token', detail) }),
  invalidRequest: (detail: string) => new Problem(400, 'Bad Request', detail, { error: 'invalid_request' }, { 'www-authenticate': challenge('invalid_request', detail) }),
  insufficientScope: (scope: string) =>
    new Problem(403, 'Forbidden', `the access token lacks the scope ${scope}`, { error: 'insufficient_scope' }, { 'www-authenticate': challenge('insufficient_scope', undefined, scope) }),
  forbidden: (detail: string) => new Problem(403, 'Forbidden', detail),
  notFound: (detail = 'no such item') => new Problem(404, 'Not Found', detail),
  conflict: (detail: string) => new Problem(409, 'Conflict', detail),
  preconditionFailed: (detail = 'the item has changed since the ETag given in If-Match') => new Problem(412, 'Precondition Failed', detail),
  badRequest: (detail: string, errors?: FieldError[]) => new Problem(400, 'Bad Request', detail, errors ? { errors } : {}),
};

const DOMAIN_STATUS: Partial<Record<DomainErrorCode, (m: string) => Problem>> = {
  not_found: (m) => problems.notFound(m),
  already_exists: (m) => problems.conflict(m),
  in_use: (m) => problems.conflict(m),
  invalid_value: (m) => problems.badRequest(m),
};

const STATUS_TITLES: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 413: 'Content Too Large', 415: 'Unsupported Media Type', 503: 'Service Unavailable' };

/** The one table that turns whatever a central route threw into its answer. */
export function toProblem(exception: unknown, log: (e: unknown) => void): Problem {
  if (exception instanceof Problem) return exception;
  if (exception instanceof DomainError) return (DOMAIN_STATUS[exception.code] ?? problems.badRequest)(exception.message);
  if (exception instanceof WrongExpectedRevisionError) return problems.preconditionFailed();
  const store = storeError(exception);
  if (store) return new Problem(store.status, store.status === 503 ? 'Service Unavailable' : 'Internal Server Error', store.description, {}, store.status === 503 ? { 'retry-after': '1' } : {});
  if (exception instanceof OAuthError) return new Problem(exception.status, STATUS_TITLES[exception.status] ?? 'Bad Request', exception.description);
  const status = exception instanceof HttpException ? exception.getStatus() : (exception as { statusCode?: number })?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const detail = status === 413 ? 'request body too large' : status === 415 ? 'send application/json (application/merge-patch+json for PATCH)' : status === 404 ? 'no such endpoint' : 'malformed request';
    return new Problem(status, STATUS_TITLES[status] ?? 'Bad Request', detail);
  }
  log(exception);
  return new Problem(500, 'Internal Server Error', 'the server could not complete the request');
}

export function sendProblem(reply: FastifyReply, p: Problem): void {
  reply.status(p.status).header('content-type', 'application/problem+json').header('cache-control', 'no-store');
  for (const [name, value] of Object.entries(p.headers)) reply.header(name, value);
  reply.send(JSON.stringify({ type: 'about:blank', title: p.title, status: p.status, ...(p.detail ? { detail: p.detail } : {}), ...p.extensions }));
}
