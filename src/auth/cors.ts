import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientView } from '../../projections/clients.projection.js';
import { InvalidRequest } from './oauth-errors.js';

/**
 * Cross-origin access (the Fetch standard's CORS protocol) for applications that run in a
 * browser and call the server from their own origin:
 *
 * - the metadata documents and the key set are public: any origin may read them;
 * - the token and revocation endpoints answer a browser for a public client whose redirect
 *   URIs include the calling origin; a confidential client's secret has no place in a browser,
 *   so its requests from a browser are refused;
 * - userinfo answers a browser when the access token's client has a redirect URI on the
 *   calling origin.
 *
 * Responses of these endpoints carry the caller's origin as long as no client is known (an
 * error about a malformed or unknown token stays readable to the application); once the
 * client is known and the origin is not its own, the request is refused with
 * `invalid_request`, before anything is issued, and the answer carries no CORS header.
 */

const PUBLIC_PATH = /^\/(?:[^/?]+\/\.well-known\/(?:openid-configuration|oauth-authorization-server|jwks\.json)|\.well-known\/(?:openid-configuration|oauth-authorization-server)\/[^/?]+)(?:\?|$)/;
const CLIENT_PATH = /^\/[^/?]+\/(?:(?:oauth\/)?(token|userinfo)|revoke)(?:\?|$)/;
const ALLOW_ORIGIN = 'access-control-allow-origin';
/** How long a browser may keep a preflight's answer. */
const PREFLIGHT_MAX_AGE = '600';

/** The origins of a client's redirect URIs; custom schemes have none (an opaque origin is never allowed). */
function originsOf(client: ClientView): string[] {
  return client.redirectUris.flatMap((uri) => {
    const origin = URL.canParse(uri) ? new URL(uri).origin : 'null';
    return origin !== 'null' ? [origin] : [];
  });
}

/**
 * Adds the CORS headers for the endpoints above, as a request arrives; answers a preflight
 * request itself and then returns true (the request goes no further).
 */
export function applyCors(req: FastifyRequest, reply: FastifyReply): boolean {
  const origin = req.headers.origin;
  const preflight = req.method === 'OPTIONS' && origin !== undefined && origin !== 'null';
  if (PUBLIC_PATH.test(req.url)) {
    // Always, not only when an Origin is sent: a shared cache may hand this answer to a browser.
    reply.header(ALLOW_ORIGIN, '*');
    if (!preflight) return false;
    // A library that adds a header of its own to a GET of a public document still gets it.
    reply.code(204).header('access-control-allow-methods', 'GET').header('access-control-allow-headers', '*').header('access-control-max-age', PREFLIGHT_MAX_AGE).send();
    return true;
  }
  const endpoint = origin && origin !== 'null' ? CLIENT_PATH.exec(req.url) : null;
  if (!endpoint) return false;
  reply.header(ALLOW_ORIGIN, origin).header('vary', 'Origin').header('access-control-expose-headers', 'WWW-Authenticate, X-Request-Id, DPoP-Nonce');
  if (!preflight) return false;
  reply
    .code(204)
    .header('access-control-allow-methods', endpoint[1] === 'userinfo' ? 'GET, POST' : 'POST')
    .header('access-control-allow-headers', 'Authorization, Content-Type, DPoP')
    .header('access-control-max-age', PREFLIGHT_MAX_AGE)
    .send();
  return true;
}

/**
 * Refuses a browser request (one with an Origin) on behalf of `client` from an origin that is
 * not the client's, or for a confidential client where `publicOnly`.
 */
export function requireClientOrigin(req: FastifyRequest, reply: FastifyReply, client: ClientView, publicOnly: boolean): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  if ((!publicOnly || client.tokenEndpointAuthMethod === 'none') && originsOf(client).includes(origin)) return;
  reply.removeHeader(ALLOW_ORIGIN);
  throw new InvalidRequest(
    publicOnly && client.tokenEndpointAuthMethod !== 'none' ? 'a confidential client does not call this endpoint from a browser' : `origin ${origin} is not one of the client's`,
  );
}
