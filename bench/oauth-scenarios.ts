/**
 * The two servers as the benchmark sees them (endpoint paths, how a browser signs in) and
 * the scenarios: each sets up one virtual client per connection, then gives the
 * operation the load loop repeats.
 */
import { createHash, randomBytes } from 'node:crypto';
import { CLIENT_ID, CLIENT_SECRET, FULL_SCOPE, PASSWORD, REDIRECT_URI, USERINFO_SCOPE, USERNAME, API_SCOPE, JWT_CLIENT_ID, JWT_CLIENT_KEY, JWT_CLIENT_KID } from './oauth-fixtures.js';
import { clientAssertion, dpopProof, newSenderKey, type SenderKey } from './oauth-sender.js';
import { CookieJar, HttpConnection, type HttpResponse } from './oauth-http.js';

export type SideName = 'ours' | 'peer';

export interface Side {
  name: SideName;
  label: string;
  host: string;
  port: number;
  paths: { authorize: string; token: string; introspect: string; userinfo: string };
  /** Where the browser is sent to sign in: ours answers a login form, the peer's interaction completes by itself. */
  isLoginPage(path: string): boolean;
}

export function oursSide(port: number, tenant: string): Side {
  const base = `/${tenant}`;
  return {
    name: 'ours',
    label: 'ours (NestJS + embedded event store)',
    host: '127.0.0.1',
    port,
    paths: { authorize: `${base}/authorize`, token: `${base}/token`, introspect: `${base}/introspect`, userinfo: `${base}/userinfo` },
    isLoginPage: (path) => path.split('?')[0] === `${base}/login`,
  };
}

export function peerSide(port: number): Side {
  return {
    name: 'peer',
    label: 'peer (oidc-provider, in-memory)',
    host: '127.0.0.1',
    port,
    paths: { authorize: '/auth', token: '/token', introspect: '/token/introspection', userinfo: '/me' },
    isLoginPage: () => false,
  };
}

/** The outcome of one operation: failures say why, and are counted as errors. */
export type OpResult = true | string;

/** One virtual client: its own connection, cookies and tokens. */
export interface VirtualClient {
  conn: HttpConnection;
  jar: CookieJar;
  accessToken?: string;
  refreshToken?: string;
}

export interface Scenario {
  id: string;
  title: string;
  /** Prepares a virtual client (sign-in, first tokens); not measured. */
  setup(side: Side, vc: VirtualClient): Promise<void>;
  /** The measured operation. */
  op(side: Side, vc: VirtualClient): Promise<OpResult>;
}

const BASIC = `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64')}`;
const FORM = 'application/x-www-form-urlencoded';
const TOKEN_HEADERS = { authorization: BASIC, 'content-type': FORM, accept: 'application/json' };

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

function failure(what: string, res: HttpResponse): string {
  return `${what}: HTTP ${res.status} ${res.body.replace(/\s+/g, ' ').slice(0, 160)}`;
}

function json(res: HttpResponse): Record<string, unknown> | undefined {
  try {
    return JSON.parse(res.body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

async function send(side: Side, vc: VirtualClient, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<HttpResponse> {
  const cookie = vc.jar.header(path);
  const res = await vc.conn.request(method, path, cookie ? { ...headers, cookie } : headers, body);
  if (res.setCookies.length) vc.jar.store(res.setCookies, path);
  return res;
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizePath(side: Side, scope: string, challenge: string, state: string): string {
  return `${side.paths.authorize}?${form({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })}`;
}

function isRedirect(status: number): boolean {
  return status === 302 || status === 303;
}

/**
 * GET /authorize and take the code from the redirect to the client. With `signIn`, the
 * redirects inside the server are followed and ours's login form is submitted; without it,
 * the browser session must be enough (one request).
 */
async function authorize(side: Side, vc: VirtualClient, scope: string, challenge: string, signIn: boolean): Promise<{ code: string } | string> {
  const state = randomBytes(8).toString('base64url');
  let path = authorizePath(side, scope, challenge, state);
  for (let hop = 0; hop < 8; hop++) {
    const res = await send(side, vc, 'GET', path);
    if (!isRedirect(res.status)) return failure('authorize', res);
    const location = res.headers.location ?? '';
    if (location.startsWith(REDIRECT_URI)) {
      const url = new URL(location);
      const code = url.searchParams.get('code');
      if (!code) return `authorize: redirected without a code (${url.search.slice(0, 160)})`;
      if (url.searchParams.get('state') !== state) return 'authorize: state mismatch';
      return { code };
    }
    if (!signIn) return `authorize: redirected to ${location.slice(0, 80)} instead of the client (no session?)`;
    const next = new URL(location, `http://${side.host}:${side.port}`);
    path = `${next.pathname}${next.search}`;
    if (side.isLoginPage(path)) {
      const interaction = next.searchParams.get('interaction') ?? '';
      const login = await send(side, vc, 'POST', next.pathname, { 'content-type': FORM }, form({ interaction, username: USERNAME, password: PASSWORD }));
      if (!isRedirect(login.status)) return failure('login', login);
      const to = login.headers.location ?? '';
      if (to.startsWith(REDIRECT_URI)) {
        const code = new URL(to).searchParams.get('code');
        return code ? { code } : `login: redirected without a code (${to.slice(0, 160)})`;
      }
      const after = new URL(to, `http://${side.host}:${side.port}`);
      path = `${after.pathname}${after.search}`;
    }
  }
  return 'authorize: too many redirects';
}

async function exchange(side: Side, vc: VirtualClient, code: string, verifier: string): Promise<Record<string, unknown> | string> {
  const res = await send(side, vc, 'POST', side.paths.token, TOKEN_HEADERS, form({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }));
  if (res.status !== 200) return failure('token (authorization_code)', res);
  const body = json(res);
  if (!body || typeof body.access_token !== 'string') return failure('token (authorization_code): no access_token', res);
  return body;
}

/** Signs the virtual client's browser in (not measured) and returns the tokens of that first code. */
export async function signInAndExchange(side: Side, vc: VirtualClient, scope: string): Promise<Record<string, unknown>> {
  const { verifier, challenge } = pkce();
  const got = await authorize(side, vc, scope, challenge, true);
  if (typeof got === 'string') throw new Error(`${side.name} sign-in: ${got}`);
  const tokens = await exchange(side, vc, got.code, verifier);
  if (typeof tokens === 'string') throw new Error(`${side.name} sign-in: ${tokens}`);
  return tokens;
}

export const clientCredentials: Scenario = {
  id: 'client_credentials',
  title: 'client_credentials (POST /token)',
  async setup() {},
  async op(side, vc) {
    const res = await send(side, vc, 'POST', side.paths.token, TOKEN_HEADERS, form({ grant_type: 'client_credentials', scope: API_SCOPE }));
    if (res.status !== 200) return failure('client_credentials', res);
    return res.body.includes('"access_token"') ? true : failure('client_credentials: no access_token', res);
  },
};

export const refreshRotation: Scenario = {
  id: 'refresh_rotation',
  title: 'refresh_token rotation (own chain per client)',
  async setup(side, vc) {
    const tokens = await signInAndExchange(side, vc, FULL_SCOPE);
    if (typeof tokens.refresh_token !== 'string') throw new Error(`${side.name}: the code exchange gave no refresh token`);
    vc.refreshToken = tokens.refresh_token;
  },
  async op(side, vc) {
    const res = await send(side, vc, 'POST', side.paths.token, TOKEN_HEADERS, form({ grant_type: 'refresh_token', refresh_token: vc.refreshToken! }));
    const body = res.status === 200 ? json(res) : undefined;
    if (!body || typeof body.refresh_token !== 'string' || typeof body.access_token !== 'string') {
      // The chain is broken: start a new one (not measured), and count the error.
      await refreshRotation.setup(side, vc);
      return failure('refresh_token', res);
    }
    if (body.refresh_token === vc.refreshToken) return 'refresh_token: not rotated';
    vc.refreshToken = body.refresh_token;
    return true;
  },
};

async function userinfoTokenSetup(side: Side, vc: VirtualClient): Promise<void> {
  const tokens = await signInAndExchange(side, vc, USERINFO_SCOPE);
  vc.accessToken = tokens.access_token as string;
}

export const introspection: Scenario = {
  id: 'introspection',
  title: 'introspection of a valid access token',
  setup: userinfoTokenSetup,
  async op(side, vc) {
    const res = await send(side, vc, 'POST', side.paths.introspect, TOKEN_HEADERS, form({ token: vc.accessToken!, token_type_hint: 'access_token' }));
    if (res.status !== 200) return failure('introspection', res);
    return json(res)?.active === true ? true : failure('introspection: not active', res);
  },
};

export const userinfo: Scenario = {
  id: 'userinfo',
  title: 'userinfo (GET, Bearer)',
  setup: userinfoTokenSetup,
  async op(side, vc) {
    const res = await send(side, vc, 'GET', side.paths.userinfo, { authorization: `Bearer ${vc.accessToken!}`, accept: 'application/json' });
    if (res.status !== 200) return failure('userinfo', res);
    return typeof json(res)?.sub === 'string' ? true : failure('userinfo: no sub', res);
  },
};

export const authorizationCode: Scenario = {
  id: 'authorization_code',
  title: 'authorize (session cookie) + code exchange with PKCE',
  async setup(side, vc) {
    await signInAndExchange(side, vc, FULL_SCOPE);
  },
  async op(side, vc) {
    const { verifier, challenge } = pkce();
    const got = await authorize(side, vc, FULL_SCOPE, challenge, false);
    if (typeof got === 'string') return got;
    const tokens = await exchange(side, vc, got.code, verifier);
    if (typeof tokens === 'string') return tokens;
    if (typeof tokens.id_token !== 'string' || typeof tokens.refresh_token !== 'string') return 'token (authorization_code): no id_token or refresh_token';
    return true;
  },
};

/** The DPoP key of each virtual client (RFC 9449), made at its setup. */
const dpopKeys = new WeakMap<VirtualClient, SenderKey>();

export const clientCredentialsDpop: Scenario = {
  id: 'client_credentials_dpop',
  title: 'client_credentials bound by a DPoP proof (a fresh proof per request)',
  async setup(_side, vc) {
    dpopKeys.set(vc, newSenderKey());
  },
  async op(side, vc) {
    const proof = dpopProof(dpopKeys.get(vc)!, 'POST', `http://${side.host}:${side.port}${side.paths.token}`);
    const res = await send(side, vc, 'POST', side.paths.token, { ...TOKEN_HEADERS, dpop: proof }, form({ grant_type: 'client_credentials', scope: API_SCOPE }));
    if (res.status !== 200) return failure('client_credentials (DPoP)', res);
    return json(res)?.token_type === 'DPoP' ? true : failure('client_credentials (DPoP): not a DPoP token', res);
  },
};

export const privateKeyJwt: Scenario = {
  id: 'private_key_jwt',
  title: 'client_credentials of a private_key_jwt client (a fresh assertion per request)',
  async setup() {},
  async op(side, vc) {
    const assertion = clientAssertion(JWT_CLIENT_KEY, JWT_CLIENT_ID, `http://${side.host}:${side.port}${side.paths.token}`, JWT_CLIENT_KID);
    const body = form({ grant_type: 'client_credentials', scope: API_SCOPE, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion });
    const res = await send(side, vc, 'POST', side.paths.token, { 'content-type': FORM, accept: 'application/json' }, body);
    if (res.status !== 200) return failure('client_credentials (private_key_jwt)', res);
    return res.body.includes('"access_token"') ? true : failure('client_credentials (private_key_jwt): no access_token', res);
  },
};

export const SCENARIOS: readonly Scenario[] = [clientCredentials, refreshRotation, introspection, userinfo, authorizationCode, clientCredentialsDpop, privateKeyJwt];

/** Obtains one client_credentials access token and describes its format (a JWT's typ and alg), to show both sides issue the same kind. */
export async function describeClientCredentialsToken(side: Side): Promise<string> {
  const conn = new HttpConnection(side.host, side.port);
  try {
    const res = await conn.request('POST', side.paths.token, TOKEN_HEADERS, form({ grant_type: 'client_credentials', scope: API_SCOPE }));
    const token = json(res)?.access_token;
    if (res.status !== 200 || typeof token !== 'string') return failure('client_credentials', res);
    const parts = token.split('.');
    if (parts.length !== 3) return `opaque (${token.length} characters)`;
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as Record<string, unknown>;
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    return `JWT typ=${String(header.typ)} alg=${String(header.alg)} aud=${JSON.stringify(payload.aud)} scope=${JSON.stringify(payload.scope)}`;
  } finally {
    conn.close();
  }
}
