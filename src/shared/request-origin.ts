import type { FastifyRequest } from 'fastify';
import { isIP } from 'node:net';
import type { RequestOrigin } from '../infrastructure/event-store/event-store.port.js';

/** A `User-Agent` longer than this is cut: it is the client's to write, and every event of the request repeats it. */
export const USER_AGENT_LIMIT = 512;

/**
 * The origin the events of a request record: its id, the client's address (Fastify's `ip`,
 * which follows `X-Forwarded-For` only through the proxies `TRUST_PROXY` names; anything there
 * that is no address is left out) and its `User-Agent`.
 */
export function originOf(req: FastifyRequest): RequestOrigin {
  // An IPv6 zone (`fe80::1%eth0`) names an interface of the host that saw the address, and a
  // forwarded one could be of any length: the address alone is kept.
  const ip = req.ip?.split('%')[0];
  const agent = req.headers['user-agent'];
  const origin: RequestOrigin = { correlationId: req.id };
  if (ip && isIP(ip)) origin.sourceIp = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  if (agent) origin.userAgent = agent.length > USER_AGENT_LIMIT ? agent.slice(0, USER_AGENT_LIMIT) : agent;
  return origin;
}
