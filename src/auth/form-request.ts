import type { FastifyRequest } from 'fastify';
import { InvalidRequest } from './oauth-errors.js';
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
