/**
 * A relying party for the end-to-end tests, built on oauth4webapi: discovery, the browser part
 * of the code flow (through the test browser and the HTML login form), the token, introspection,
 * revocation and userinfo requests, and raw requests for what a library would refuse to send.
 * Every response goes through a ContractFetch, so each one is checked against its OpenAPI file.
 */
import * as oauth from 'oauth4webapi';
import { Browser } from './browser.js';
import { ContractFetch } from './contract-fetch.js';
import { ALICE_PASSWORD, REDIRECT, SERVICE_SECRET, THIRD_SECRET, type TestServer, WEB_SECRET } from './server.js';

export const BOB_PASSWORD = "bob's long password";

/** How each bootstrap client authenticates at the token, introspection and revocation endpoints. */
export const CLIENT_AUTH: Record<string, () => oauth.ClientAuth> = {
  web: () => oauth.ClientSecretBasic(WEB_SECRET),
  spa: () => oauth.None(),
  'spa-rs': () => oauth.None(),
  coded: () => oauth.ClientSecretBasic(WEB_SECRET),
  third: () => oauth.ClientSecretPost(THIRD_SECRET),
  service: () => oauth.ClientSecretBasic(SERVICE_SECRET),
};

/** The clients of CLIENT_AUTH without a secret. */
const PUBLIC_CLIENTS = new Set(['spa', 'spa-rs']);

export const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

export interface SignInOptions {
  clientId?: string;
  scope?: string;
  redirectUri?: string;
  /** Extra authorization request parameters (they override the defaults). */
  extra?: Record<string, string | undefined>;
  username?: string;
  password?: string;
  /** PKCE method; `plain` sends the verifier as the challenge. */
  method?: 'S256' | 'plain';
}

export interface SignedIn {
  /** The last response: normally the 302 back to the client. */
  res: Response;
  verifier: string;
  state: string;
  nonce: string;
  redirectUri: string;
  scope: string;
  /** The callback URL the browser was sent to (when `res` is a redirect). */
  callback?: URL;
  /** Whether the login form was shown on the way. */
  loginShown: boolean;
}

export interface OAuthErrorSeen {
  status: number;
  error: string;
  description?: string;
  wwwAuthenticate: string | null;
  cacheControl: string | null;
}

export class RelyingParty {
  readonly as: oauth.AuthorizationServer;

  private constructor(
    readonly server: TestServer,
    readonly contract: ContractFetch,
    as: oauth.AuthorizationServer,
    readonly tenant: string,
  ) {
    this.as = as;
  }

  static async discover(server: TestServer, contract: ContractFetch, tenant = 'acme'): Promise<RelyingParty> {
    const issuer = new URL(server.issuer(tenant));
    const res = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', [oauth.customFetch]: contract.fetch, [oauth.allowInsecureRequests]: true });
    return new RelyingParty(server, contract, await oauth.processDiscoveryResponse(issuer, res), tenant);
  }

  get issuer(): string {
    return this.as.issuer;
  }

  /** Request options for every oauth4webapi call: the contract-checking fetch, plain http allowed. */
  get options() {
    return { [oauth.customFetch]: this.contract.fetch, [oauth.allowInsecureRequests]: true } as const;
  }

  client(clientId: string): oauth.Client {
    return { client_id: clientId };
  }

  /** How each client authenticates: CLIENT_AUTH's, and those a test adds for its own clients. */
  readonly auths = new Map<string, () => oauth.ClientAuth>(Object.entries(CLIENT_AUTH));

  auth(clientId: string): oauth.ClientAuth {
    const make = this.auths.get(clientId);
    if (!make) throw new Error(`no client authentication is known for ${clientId}`);
    return make();
  }

  browser(): Browser {
    return new Browser(this.contract.fetch);
  }

  /** The absolute URL of a path of this tenant. */
  url(path: string): string {
    return `${this.issuer}${path}`;
  }

  authorizeUrl(params: Record<string, string | undefined>): string {
    const url = new URL(this.as.authorization_endpoint!);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    return url.href;
  }

  /** A complete, valid authorization request for `clientId`, with fresh PKCE, state and nonce. */
  async request(o: SignInOptions = {}): Promise<{ url: string; verifier: string; state: string; nonce: string; redirectUri: string; scope: string }> {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const redirectUri = o.redirectUri ?? REDIRECT;
    const method = o.method ?? 'S256';
    const scope = o.scope ?? 'openid profile email offline_access';
    const url = this.authorizeUrl({
      response_type: 'code',
      client_id: o.clientId ?? 'web',
      redirect_uri: redirectUri,
      scope,
      code_challenge: method === 'S256' ? await oauth.calculatePKCECodeChallenge(verifier) : verifier,
      code_challenge_method: method,
      state,
      nonce,
      ...o.extra,
    });
    return { url, verifier, state, nonce, redirectUri, scope };
  }

  /** Authorize in `browser`, filling the login form when it is shown. */
  async signIn(browser: Browser, o: SignInOptions = {}): Promise<SignedIn> {
    const req = await this.request(o);
    let res = await browser.follow(req.url, this.server.baseUrl);
    let loginShown = false;
    if (res.status === 200 && (await res.clone().text()).includes('name="password"')) {
      loginShown = true;
      const form = Browser.form(await res.text());
      res = await browser.post(form.action, { ...form.fields, username: o.username ?? 'alice', password: o.password ?? ALICE_PASSWORD });
    }
    const location = res.status === 302 ? res.headers.get('location') : null;
    return { res, ...req, callback: location ? new URL(location) : undefined, loginShown };
  }

  /** The code of a successful callback, checked by oauth4webapi (state and RFC 9207 iss). */
  codeParams(s: SignedIn, clientId = 'web'): URLSearchParams {
    if (!s.callback) throw new Error(`expected a redirect to the client, got ${s.res.status}`);
    return oauth.validateAuthResponse(this.as, this.client(clientId), s.callback, s.state);
  }

  async redeemRequest(clientId: string, params: URLSearchParams, redirectUri: string, verifier: string | typeof oauth.nopkce, as = this.as): Promise<Response> {
    return oauth.authorizationCodeGrantRequest(as, this.client(clientId), this.auth(clientId), params, redirectUri, verifier, this.options);
  }

  async redeem(clientId: string, s: SignedIn, verifier = s.verifier): Promise<oauth.TokenEndpointResponse> {
    const res = await this.redeemRequest(clientId, this.codeParams(s, clientId), s.redirectUri, verifier);
    // Without openid there is no ID token, so no nonce to expect.
    const openid = s.scope.split(' ').includes('openid');
    return oauth.processAuthorizationCodeResponse(this.as, this.client(clientId), res, openid ? { expectedNonce: s.nonce, requireIdToken: true } : {});
  }

  /** Signs in with a new browser (or the given one) and redeems the code. */
  async tokens(o: SignInOptions = {}, browser = this.browser()): Promise<oauth.TokenEndpointResponse> {
    const clientId = o.clientId ?? 'web';
    const s = await this.signIn(browser, o);
    return this.redeem(clientId, s);
  }

  async refresh(clientId: string, refreshToken: string): Promise<oauth.TokenEndpointResponse> {
    const res = await oauth.refreshTokenGrantRequest(this.as, this.client(clientId), this.auth(clientId), refreshToken, this.options);
    return oauth.processRefreshTokenResponse(this.as, this.client(clientId), res);
  }

  async clientCredentials(clientId: string, scope?: string): Promise<oauth.TokenEndpointResponse> {
    const res = await oauth.clientCredentialsGrantRequest(this.as, this.client(clientId), this.auth(clientId), scope ? { scope } : {}, this.options);
    return oauth.processClientCredentialsResponse(this.as, this.client(clientId), res);
  }

  /**
   * Introspects `token` as `clientId`; by default as the client an access token names
   * (`client_id`), since only it and its audience's resource server are told about it, and as
   * `web` for anything else. A public client cannot introspect: asking on its behalf throws,
   * rather than answer a test `active: false` for the wrong reason.
   */
  async introspect(token: string, clientId = this.ownerOf(token), hint?: 'access_token' | 'refresh_token'): Promise<oauth.IntrospectionResponse> {
    if (PUBLIC_CLIENTS.has(clientId) && this.auths.get(clientId) === CLIENT_AUTH[clientId]) throw new Error(`${clientId} is a public client: it cannot introspect, check its token another way`);
    const res = await oauth.introspectionRequest(this.as, this.client(clientId), this.auth(clientId), token, {
      ...this.options,
      ...(hint ? { additionalParameters: { token_type_hint: hint } } : {}),
    });
    return oauth.processIntrospectionResponse(this.as, this.client(clientId), res);
  }

  /** The client an access token (a JWT) was issued to, or `web`. */
  private ownerOf(token: string): string {
    try {
      const owner = decodeJwt(token).payload.client_id;
      return typeof owner === 'string' && this.auths.has(owner) ? owner : 'web';
    } catch {
      return 'web';
    }
  }

  async active(token: string, clientId = this.ownerOf(token)): Promise<boolean> {
    return (await this.introspect(token, clientId)).active;
  }

  /** Revokes a token; rejects with the server's error when it refuses (see oauthError). */
  async revoke(token: string, clientId = 'web', hint?: 'access_token' | 'refresh_token'): Promise<void> {
    const res = await oauth.revocationRequest(this.as, this.client(clientId), this.auth(clientId), token, {
      ...this.options,
      ...(hint ? { additionalParameters: { token_type_hint: hint } } : {}),
    });
    await oauth.processRevocationResponse(res);
  }

  /** A raw form POST to a path of this tenant, for requests a library would refuse to send. */
  async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return this.contract.fetch(this.url(path), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form),
    });
  }
}

/** The OAuth error an oauth4webapi call failed with (a JSON error body, or a WWW-Authenticate challenge). */
export async function oauthError(promise: Promise<unknown>): Promise<OAuthErrorSeen> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof oauth.ResponseBodyError) {
      return {
        status: e.status,
        error: e.error,
        description: e.error_description,
        wwwAuthenticate: e.response.headers.get('www-authenticate'),
        cacheControl: e.response.headers.get('cache-control'),
      };
    }
    if (e instanceof oauth.WWWAuthenticateChallengeError) {
      const text = await e.response.text();
      const body = text ? (JSON.parse(text) as { error?: string; error_description?: string }) : {};
      return {
        status: e.status,
        error: body.error ?? e.cause[0]?.parameters.error ?? '',
        description: body.error_description,
        wwwAuthenticate: e.response.headers.get('www-authenticate'),
        cacheControl: e.response.headers.get('cache-control'),
      };
    }
    throw e;
  }
  throw new Error('expected the request to fail with an OAuth error');
}

/** The status, headers and JSON body of a raw response. */
export async function jsonOf(res: Response): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The JOSE header and payload of a compact JWS (not verified). */
export function decodeJwt(jwt: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = jwt.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>);
  return { header, payload };
}
