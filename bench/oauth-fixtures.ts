/**
 * What both servers of the comparison benchmark are configured with: one confidential,
 * first-party client allowed every grant, one user with the same claims, the same scopes
 * and token lifetimes.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';

export const TENANT = 'bench';
export const CLIENT_ID = 'web';
export const CLIENT_SECRET = 'bench-secret-0123456789-0123456789-abcdef';
export const REDIRECT_URI = 'http://127.0.0.1:9999/cb';
export const USERNAME = 'alice';
export const PASSWORD = 'correct horse battery staple';
/** The peer's account id; ours assigns its own user id. */
export const PEER_ACCOUNT_ID = 'alice';

export const USER_CLAIMS = {
  email: 'alice@example.com',
  email_verified: true,
  name: 'Alice Liddell',
  given_name: 'Alice',
  family_name: 'Liddell',
} as const;

/**
 * A scope for an API. On the peer (oidc-provider) it belongs to the resource server whose
 * access tokens are JWTs (RFC 9068); requests that carry it get a JWT access token there.
 */
export const API_SCOPE = 'api:read';
/** The peer's resource indicator for that API. */
export const API_RESOURCE = 'https://api.bench.example/';

/** Scope of the authorization-code round trip and of the refresh-token chains. */
export const FULL_SCOPE = `openid profile email offline_access ${API_SCOPE}`;
/**
 * Scope of the tokens used at userinfo and introspection: without the API scope, so that
 * the peer issues its opaque, userinfo-audience access token (oidc-provider refuses JWT
 * access tokens at both endpoints).
 */
export const USERINFO_SCOPE = 'openid profile email';

/** The private_key_jwt client of both servers (client_credentials), and its key's id. */
export const JWT_CLIENT_ID = 'jwt-client';
export const JWT_CLIENT_KID = 'bench-assertion';
/**
 * Its key, made by the bench process, which signs the assertions. The peer's process is handed
 * the public key set in BENCH_ASSERTION_JWKS; ours gets it in its bootstrap file.
 */
export const JWT_CLIENT_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
export const jwtClientJwks = (): { keys: Array<Record<string, unknown>> } =>
  process.env.BENCH_ASSERTION_JWKS
    ? JSON.parse(process.env.BENCH_ASSERTION_JWKS)
    : { keys: [{ ...(createPublicKey(JWT_CLIENT_KEY).export({ format: 'jwk' }) as Record<string, unknown>), kid: JWT_CLIENT_KID, use: 'sig', alg: 'ES256' }] };

export const ACCESS_TOKEN_TTL = 300;
export const REFRESH_TOKEN_TTL = 14 * 24 * 3600;
export const ID_TOKEN_TTL = 600;

/**
 * Our server's bootstrap file (YAML) for the tenant. The client registers ES256 for its ID
 * tokens, as on the peer (peer-oidc-provider.ts); without it, ours would sign them RS256.
 */
export function bootstrapYaml(): string {
  return `tenants:
  - id: ${TENANT}
    access_token_ttl: ${ACCESS_TOKEN_TTL}
    refresh_token_ttl: ${REFRESH_TOKEN_TTL}
    signing_alg: ES256
    clients:
      - client_id: ${CLIENT_ID}
        client_secret: "${CLIENT_SECRET}"
        redirect_uris: ["${REDIRECT_URI}"]
        grant_types: [authorization_code, refresh_token, client_credentials]
        scope: "${FULL_SCOPE}"
        token_endpoint_auth_method: client_secret_basic
        first_party: true
        id_token_signed_response_alg: ES256
      - client_id: ${JWT_CLIENT_ID}
        grant_types: [client_credentials]
        scope: "${API_SCOPE}"
        token_endpoint_auth_method: private_key_jwt
        token_endpoint_auth_signing_alg: ES256
        jwks: ${JSON.stringify(jwtClientJwks())}
    users:
      - username: ${USERNAME}
        password: "${PASSWORD}"
        email: ${USER_CLAIMS.email}
        email_verified: ${USER_CLAIMS.email_verified}
        name: ${USER_CLAIMS.name}
        given_name: ${USER_CLAIMS.given_name}
        family_name: ${USER_CLAIMS.family_name}
`;
}
