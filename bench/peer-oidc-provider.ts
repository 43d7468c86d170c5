/**
 * The comparison peer of `npm run bench`: oidc-provider (npm) with its default in-memory
 * adapter, run as its own process (`node dist/bench/peer-oidc-provider.js`, PORT from the
 * environment), configured like our tenant `bench`:
 *
 *  - ES256 signing key, ID tokens signed with it;
 *  - access tokens for the API (requests with the `api:read` scope, client credentials
 *    included) are RFC 9068 JWTs signed with ES256, through a default resource indicator;
 *    tokens without it are oidc-provider's opaque userinfo tokens (the only kind its
 *    userinfo and introspection endpoints accept);
 *  - PKCE required, refresh tokens rotated on every use, introspection and revocation on;
 *  - the same client (confidential, client_secret_basic, every grant) and the same user;
 *  - a minimal interaction endpoint that signs the fixed account in and grants every
 *    scope at once (our client is first-party, so ours asks no consent either).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import Provider, { errors } from 'oidc-provider';
import {
  ACCESS_TOKEN_TTL,
  API_RESOURCE,
  API_SCOPE,
  CLIENT_ID,
  CLIENT_SECRET,
  FULL_SCOPE,
  ID_TOKEN_TTL,
  JWT_CLIENT_ID,
  jwtClientJwks,
  PEER_ACCOUNT_ID,
  REDIRECT_URI,
  REFRESH_TOKEN_TTL,
  USER_CLAIMS,
} from './oauth-fixtures.js';

const port = Number(process.env.PORT ?? 0);
const issuer = (process.env.PUBLIC_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');

const signingKey = {
  ...(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as Record<string, unknown>),
  kid: 'bench-es256',
  alg: 'ES256',
  use: 'sig',
};

const updatedAt = Math.floor(Date.now() / 1000);
const OIDC_SCOPES = FULL_SCOPE.split(' ').filter((s) => s !== API_SCOPE);

interface OidcContext {
  oidc: { params?: Record<string, unknown> };
}

const requestsApi = (ctx: OidcContext) => typeof ctx.oidc.params?.scope === 'string' && ctx.oidc.params.scope.split(' ').includes(API_SCOPE);

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      response_types: ['code'],
      // Only the OpenID scopes: oidc-provider checks a client's list against those alone, and
      // refuses resource-server scopes in it; api:read is the resource server's.
      scope: OIDC_SCOPES.join(' '),
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    },
    {
      client_id: JWT_CLIENT_ID,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      scope: OIDC_SCOPES.join(' '),
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: jwtClientJwks(),
    },
  ],
  jwks: { keys: [signingKey] },
  clientDefaults: { id_token_signed_response_alg: 'ES256', grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  claims: {
    openid: ['sub'],
    profile: ['name', 'given_name', 'family_name', 'updated_at'],
    email: ['email', 'email_verified'],
  },
  scopes: OIDC_SCOPES,
  responseTypes: ['code'],
  pkce: { required: () => true },
  rotateRefreshToken: true,
  // oidc-provider drops offline_access from an authorization request without prompt=consent
  // (OpenID Connect Core §11), and prompt=consent would show the consent step on every
  // round trip; so refresh tokens go to every client allowed the grant, as ours gives one
  // for offline_access. They still end with the browser session (expiresWithSession), as
  // ours do.
  issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
  async findAccount(_ctx: unknown, sub: string) {
    if (sub !== PEER_ACCOUNT_ID) return undefined;
    return { accountId: sub, claims: async () => ({ sub, ...USER_CLAIMS, updated_at: updatedAt }) };
  },
  interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
  clientBasedCORS: () => false,
  ttl: {
    AccessToken: ACCESS_TOKEN_TTL,
    ClientCredentials: ACCESS_TOKEN_TTL,
    AuthorizationCode: 60,
    IdToken: ID_TOKEN_TTL,
    RefreshToken: REFRESH_TOKEN_TTL,
    Grant: REFRESH_TOKEN_TTL,
    Session: REFRESH_TOKEN_TTL,
    Interaction: 600,
  },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    // RFC 9449, as ours: proofs at the token endpoint bind the access token; no nonce asked.
    dPoP: { enabled: true },
    introspection: {
      enabled: true,
      allowedPolicy: async (_ctx: unknown, client: { clientAuthMethod: string; clientId: string }, token: { clientId?: string }) =>
        client.clientAuthMethod !== 'none' || token.clientId === client.clientId,
    },
    revocation: {
      enabled: true,
      allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId?: string }) => token.clientId === client.clientId,
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (ctx: OidcContext, _client: unknown, oneOf?: string[]) => oneOf ?? (requestsApi(ctx) ? API_RESOURCE : undefined),
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx: unknown, resource: string) => {
        if (resource !== API_RESOURCE) throw new errors.InvalidTarget();
        return { scope: API_SCOPE, audience: API_RESOURCE, accessTokenTTL: ACCESS_TOKEN_TTL, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
      },
    },
  },
});

/** Signs the fixed account in and grants everything the client may ask for, in one step. */
provider.use(async (ctx, next) => {
  if (ctx.method !== 'GET' || !ctx.path.startsWith('/interaction/')) return next();
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  const grant = new provider.Grant({ accountId: PEER_ACCOUNT_ID, clientId: String(details.params.client_id) });
  grant.addOIDCScope(OIDC_SCOPES.join(' '));
  grant.addResourceScope(API_RESOURCE, API_SCOPE);
  const grantId = await grant.save();
  const returnTo = await provider.interactionResult(ctx.req, ctx.res, { login: { accountId: PEER_ACCOUNT_ID }, consent: { grantId } }, { mergeWithLastSubmission: false });
  ctx.status = 303;
  ctx.redirect(returnTo);
});

provider.on('server_error', (_ctx, error) => console.error('peer server_error:', error));

const server = createServer(provider.callback());
// The same keep-alive timeout as Fastify's default, which our server uses.
server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  console.log(`peer listening on ${typeof address === 'object' && address ? address.port : port}`);
});

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
