import type { FastifyReply, FastifyRequest } from 'fastify';
import { problems } from './problem.js';

/** An item's ETag: its stream revision, strong (RFC 9110 §8.8.3). */
export function etagOf(revision: number): string {
  return `"${revision}"`;
}

export function sendEtag(reply: FastifyReply, revision: number): void {
  reply.header('etag', etagOf(revision));
}

/**
 * The revision an `If-Match` names (RFC 9110 §13.1.1), or undefined when the request has none
 * or `*` (the item must merely exist). A list of several, or a weak tag, cannot name one
 * revision: 412, as a stale one.
 */
export function ifMatchRevision(req: FastifyRequest): number | undefined {
  const header = req.headers['if-match'];
  if (header === undefined) return undefined;
  const value = (Array.isArray(header) ? header.join(',') : header).trim();
  if (value === '*') return undefined;
  const match = /^"(\d{1,15})"$/.exec(value);
  if (!match) throw problems.preconditionFailed('If-Match must be one ETag of this item, as a GET gave it');
  return Number(match[1]);
}
