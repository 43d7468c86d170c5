import type { FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { InvalidRequest, type OAuthError } from './oauth-errors.js';
import { type Params, readParams } from './params.js';
import { requireUncompressed } from './urlencoded.js';

/** The form body of a POST to an OAuth endpoint (RFC 6749 §3.2: application/x-www-form-urlencoded only). */
export function formParams(req: FastifyRequest): Params {
  return readParams(formBody(req));
}

/** The parsed body of a POST, once its headers say it is a form. */
export function formBody(req: FastifyRequest): unknown {
  requireUncompressed(req);
  const type = req.headers['content-type'] ?? '';
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) throw new InvalidRequest('the body must be application/x-www-form-urlencoded');
  return req.body;
}

/**
 * The request's Authorization header. Node keeps the first of several, but two are two sets of
 * credentials in one request, of which the server would silently pick one (the field takes
 * one value, RFC 9110 §11.6.2): refused with `refused`'s error.
 */
export function authorizationOf(req: FastifyRequest, refused: (description: string) => OAuthError = (d) => new InvalidRequest(d)): string | undefined {
  if (headerLines(req.raw, 'authorization') > 1) throw refused('send a single Authorization header');
  return req.headers.authorization;
}

/** How many lines of the request carry header `name` (lower case): Node keeps only the first of some. */
export function headerLines(raw: IncomingMessage, name: string): number {
  const headers = raw.rawHeaders;
  let seen = 0;
  for (let i = 0; i < headers.length; i += 2) if (headers[i].length === name.length && headers[i].toLowerCase() === name) seen++;
  return seen;
}
