import { calculateJwkThumbprint, createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { signJwt } from '../../src/infrastructure/crypto/jws.js';
import { KeyRing } from '../../src/infrastructure/crypto/key-ring.js';
import type { SigningAlg } from '../../src/domain/tenant/tenant.events.js';
import { Directory } from '../../src/shared/directory.js';
import { ProxyMetrics } from '../../src/edge/proxy/proxy-metrics.js';
import { adminCall, adminClients, adminToken } from '../support/admin.js';
import { decodeJwt, type RelyingParty } from '../support/rp.js';
import { ALICE_PASSWORD, REDIRECT, type TestServer } from '../support/server.js';
import { endToEnd } from '../support/suite.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real upstream on loopback: it records what it receives and answers with it; `/hang` never answers. */
class Upstream {
  readonly seen: Seen[] = [];
  private server!: Server;
  private readonly hanging = new Set<import('node:http').ServerResponse>();
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d: string) => (body += d));
      req.on('end', () => {
        this.seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        if (req.url!.includes('/hang')) return void this.hanging.add(res);
        res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes', connection: 'keep-alive, x-hop', 'x-hop': 'dropped', 'set-cookie': ['up=1; Path=/'] });
        res.end(JSON.stringify({ url: req.url, method: req.method, length: body.length }));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

const upstream = new Upstream();
const other = new Upstream();
const INVOICES = 'https://api.example.com/invoices';
const OTHER = 'https://api.example.com/other';

/** A port nothing listens on: the upstream of `down`. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

async function bootstrap(): Promise<string> {
  await upstream.start();
  await other.start();
  const down = await closedPort();
  return `
tenants:
  - id: acme
    access_token_ttl: 600
    clients:${adminClients()}
      - client_id: web
        client_secret: "web-secret-0123456789-0123456789-abcdef"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code]
        scope: "openid"
        token_endpoint_auth_method: client_secret_basic
        first_party: true
    resources:
      - { id: invoices, identifier: "${INVOICES}", upstream_url: "http://127.0.0.1:${upstream.port}/api" }
      - { id: other, identifier: "${OTHER}", upstream_url: "http://127.0.0.1:${other.port}" }
      - { id: down, identifier: "https://api.example.com/down", upstream_url: "http://127.0.0.1:${down}" }
    permissions:
      - { id: "invoices:read", resource: invoices }
      - { id: "invoices:approve", resource: invoices }
    roles:
      - { id: clerk, permissions: ["invoices:read"] }
      - { id: approver, permissions: ["invoices:approve"] }
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
        roles: [clerk]
      - username: bob
        password: "bob's long password"`;
}

let server: TestServer;
let rp: RelyingParty;
const contract = endToEnd((s) => ({ server, rp } = s), bootstrap, { env: { PROXY_TIMEOUT_MS: '1500' } });

const ROUTES = [
  { methods: ['GET'], path: '/health', public: true },
  { methods: ['GET'], path: '/invoices/**', permissions: ['invoices:read'] },
  { methods: ['POST'], path: '/invoices/*/approve', permissions: ['invoices:approve'] },
  { methods: ['*'], path: '/hang' },
];

let admin: string;
let alice: string;
let bob: string;

/** What RFC 8707 resource indicators will give: the user's own access token, its `aud` naming `audiences` too (signed here with the tenant's key). */
async function tokenFor(username: string, password: string, audiences: string[], claims: Record<string, unknown> = {}): Promise<string> {
  const { access_token } = await rp.tokens({ username, password, scope: 'openid' });
  const payload = { ...decodeJwt(access_token).payload, ...claims };
  const tenant = (await server.app.get(Directory).tenant('acme'))!;
  const key = await server.app.get(KeyRing).signingKey('acme', tenant.signingAlg as SigningAlg);
  return signJwt({ alg: key.alg, kid: key.kid, typ: 'at+jwt' }, { ...payload, aud: [server.issuer('acme'), ...audiences] }, key.privateKey);
}

beforeAll(async () => {
  admin = await adminToken(server, 'acme');
  for (const [id, extra] of [['invoices', {}], ['other', { routes: [{ methods: ['*'], path: '/**' }] }], ['down', { routes: [{ methods: ['*'], path: '/**', public: true }] }]] as const) {
    const res = await adminCall(server, contract, 'PATCH', `/acme/configuration/resources/${id}`, admin, { routes: ROUTES, ...extra });
    expect(res.status).toBe(200);
  }
  alice = await tokenFor('alice', ALICE_PASSWORD, [INVOICES]);
  bob = await tokenFor('bob', "bob's long password", [INVOICES, OTHER]);
});

afterAll(async () => {
  await upstream.stop();
  await other.stop();
});

/** A request sent as written (no client-side path normalisation), its answer read whole. */
function raw(path: string, method = 'GET', headers: Record<string, string | string[]> = {}, body?: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const url = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

/** Runs `send` and returns its answer with what the upstream saw meanwhile. */
async function through<T>(send: () => Promise<T>): Promise<{ res: T; seen: Seen[] }> {
  const [a, b] = [upstream.seen.length, other.seen.length];
  const res = await send();
  return { res, seen: [...upstream.seen.slice(a), ...other.seen.slice(b)] };
}

async function denials(): Promise<Array<{ data: Record<string, unknown> }>> {
  const res = await adminCall(server, contract, 'GET', '/acme/configuration/audit/events?type=ProxyRequestDenied&limit=1000', admin);
  return res.body.items;
}

describe('proxy: who may pass', () => {
  it('forwards a permitted request with the identity of its caller, signed by the tenant, and passes the answer back', async () => {
    const { res, seen } = await through(() => raw('/acme/resources/invoices/invoices/7?x=1', 'GET', bearer(alice)));
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body)).toEqual({ url: '/api/invoices/7?x=1', method: 'GET', length: 0 });
    expect(res.headers['x-upstream']).toBe('yes');
    expect(res.headers['set-cookie']).toEqual(['up=1; Path=/']);
    expect(res.headers['x-hop']).toBeUndefined();
    expect(seen).toHaveLength(1);
    const identity = seen[0].headers['x-identity'] as string;
    const jwks = createRemoteJWKSet(new URL(`${server.issuer('acme')}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(identity, jwks, { issuer: server.issuer('acme'), audience: INVOICES, typ: 'identity+jwt' });
    expect(protectedHeader.typ).toBe('identity+jwt');
    expect(payload).toMatchObject({ sub: decodeJwt(alice).payload.sub, client_id: 'web', scope: 'openid', permissions: ['invoices:read'] });
    expect(payload.exp! - payload.iat!).toBe(60);
    expect(seen[0].headers.authorization).toBeUndefined();
  });

  it('forwards a token that a resource indicator (RFC 8707) made for the resource: its aud the identifier alone', async () => {
    const { access_token } = await rp.tokens({ username: 'alice', password: ALICE_PASSWORD, scope: 'openid', extra: { resource: INVOICES } });
    expect(decodeJwt(access_token).payload.aud).toBe(INVOICES);
    const { res, seen } = await through(() => raw('/acme/resources/invoices/invoices/7', 'GET', bearer(access_token)));
    expect(res.status).toBe(201);
    expect(seen).toHaveLength(1);
    expect((await raw('/acme/resources/other/x', 'GET', bearer(access_token))).status).toBe(401);
  });

  it('takes a DPoP-bound token with the DPoP scheme and a proof of its key for this request, and refuses it as Bearer (RFC 9449 §7)', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(keys.publicKey);
    const token = await tokenFor('alice', ALICE_PASSWORD, [INVOICES], { cnf: { jkt: await calculateJwkThumbprint(jwk) } });
    const url = `${server.issuer('acme')}/resources/invoices/invoices/7`;
    const proof = (htu: string) =>
      new SignJWT({ htm: 'GET', htu, iat: Math.floor(server.clock.now().getTime() / 1000), jti: crypto.randomUUID(), ath: createHash('sha256').update(token).digest('base64url') })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(keys.privateKey);
    const { res, seen } = await through(async () => raw('/acme/resources/invoices/invoices/7', 'GET', { authorization: `DPoP ${token}`, dpop: await proof(url) }));
    expect(res.status).toBe(201);
    expect(seen).toHaveLength(1);
    // The proof is the edge's to check: the upstream sees neither it nor the token.
    expect(seen[0].headers.dpop).toBeUndefined();
    const refused = await through(async () => raw('/acme/resources/invoices/invoices/7', 'GET', { authorization: `Bearer ${token}`, dpop: await proof(url) }));
    expect(refused.res.status).toBe(401);
    expect(refused.res.headers['www-authenticate']).toMatch(/^DPoP error="invalid_token"/);
    expect(refused.seen).toHaveLength(0);
    const otherUrl = await through(async () => raw('/acme/resources/invoices/invoices/7', 'GET', { authorization: `DPoP ${token}`, dpop: await proof(`${url}/else`) }));
    expect(otherUrl.res.status).toBe(401);
    expect(otherUrl.res.headers['www-authenticate']).toMatch(/^DPoP error="invalid_dpop_proof"/);
    expect(otherUrl.seen).toHaveLength(0);
  });

  it('refuses what the route does not allow: no token 401, a token for another audience 401, missing permissions or no route 403; the upstream sees none of it', async () => {
    const before = (await denials()).length;
    const { access_token: issuerOnly } = await rp.tokens({ username: 'alice', password: ALICE_PASSWORD, scope: 'openid' });
    const cases: Array<[string, string, Record<string, string>, number, string | null]> = [
      ['GET', '/acme/resources/invoices/invoices/7', {}, 401, 'Bearer'],
      ['GET', '/acme/resources/invoices/invoices/7', bearer('not-a-token'), 401, 'Bearer error="invalid_token"'],
      ['GET', '/acme/resources/invoices/invoices/7', bearer(issuerOnly), 401, 'Bearer error="invalid_token"'],
      ['GET', '/acme/resources/other/x', bearer(alice), 401, 'Bearer error="invalid_token"'],
      ['POST', '/acme/resources/invoices/invoices/7/approve', bearer(alice), 403, 'Bearer error="insufficient_scope"'],
      ['GET', '/acme/resources/invoices/invoices/7', bearer(bob), 403, 'Bearer error="insufficient_scope"'],
      ['GET', '/acme/resources/invoices/admin', bearer(alice), 403, 'Bearer error="insufficient_scope"'],
      ['DELETE', '/acme/resources/invoices/invoices/7', bearer(alice), 403, 'Bearer error="insufficient_scope"'],
      ['GET', '/acme/resources/invoices/invoices/7?access_token=x', bearer(alice), 400, 'Bearer error="invalid_request"'],
    ];
    for (const [method, path, headers, status, challenge] of cases) {
      const { res, seen } = await through(() => raw(path, method, headers));
      expect([method, path, res.status, seen.length]).toEqual([method, path, status, 0]);
      expect(String(res.headers['www-authenticate'])).toMatch(new RegExp(`^${challenge!.replace(/"/g, '"')}`));
    }
    const recorded = (await denials()).slice(before);
    expect(recorded.map((e) => [e.data.status, e.data.reason])).toEqual([
      [401, 'no_token'],
      [401, 'invalid_token'],
      [401, 'wrong_audience'],
      [401, 'wrong_audience'],
      [403, 'missing_permissions'],
      [403, 'missing_permissions'],
      [403, 'no_route'],
      [403, 'no_route'],
      [400, 'invalid_request'],
    ]);
    expect(recorded[4].data).toMatchObject({ resourceId: 'invoices', method: 'POST', path: '/invoices/7/approve', missing: ['invoices:approve'], clientId: 'web' });
    expect(JSON.stringify(recorded)).not.toContain(alice);
  });

  it('serves a public route to anyone, without an identity', async () => {
    const { res, seen } = await through(() => raw('/acme/resources/invoices/health', 'GET', { 'x-identity': 'forged' }));
    expect(res.status).toBe(201);
    expect(seen[0].headers['x-identity']).toBeUndefined();
    expect((await raw('/acme/resources/invoices/health', 'HEAD')).status).toBe(201);
  });

  it('lets a role given through the admin API count on the very next request, and a revoked token no more', async () => {
    const users = await adminCall(server, contract, 'GET', '/acme/configuration/users?username=alice&limit=1', admin);
    const id = users.body.items[0].id;
    expect((await adminCall(server, contract, 'PUT', `/acme/configuration/users/${id}/roles/approver`, admin)).status).toBeLessThan(300);
    const { res, seen } = await through(() => raw('/acme/resources/invoices/invoices/7/approve', 'POST', { ...bearer(alice), 'content-type': 'application/json' }, '{"ok":true}'));
    expect(res.status).toBe(201);
    expect(seen[0].body).toBe('{"ok":true}');
    expect((await jwtPayload(seen[0].headers['x-identity'] as string)).permissions).toEqual(['invoices:approve', 'invoices:read']);
    await adminCall(server, contract, 'DELETE', `/acme/configuration/users/${id}/roles/approver`, admin);
    expect((await raw('/acme/resources/invoices/invoices/7/approve', 'POST', bearer(alice))).status).toBe(403);
    const revocable = await tokenFor('alice', ALICE_PASSWORD, [INVOICES]);
    expect((await raw('/acme/resources/invoices/invoices/1', 'GET', bearer(revocable))).status).toBe(201);
    await rp.revoke(revocable);
    expect((await raw('/acme/resources/invoices/invoices/1', 'GET', bearer(revocable))).status).toBe(401);
  });

  it("counts forwarded requests in the process's metrics", () => {
    const counts = server.app.get(ProxyMetrics).snapshot();
    expect(counts.forwarded['acme/invoices']).toBeGreaterThan(0);
    expect(counts.denied['acme/invoices']).toBeGreaterThan(0);
  });
});

async function jwtPayload(jwt: string): Promise<Record<string, unknown>> {
  return decodeJwt(jwt).payload;
}

describe('proxy: what the upstream gets', () => {
  it('strips hop-by-hop fields, the edge cookies, the token and any client-written identity or forwarding header', async () => {
    const { res, seen } = await through(() =>
      raw('/acme/resources/invoices/invoices/1', 'GET', {
        ...bearer(alice),
        'x-identity': 'forged',
        'x-forwarded-for': '6.6.6.6',
        forwarded: 'for=6.6.6.6',
        connection: 'keep-alive, x-smuggled',
        'x-smuggled': 'yes',
        'proxy-authorization': 'Basic eA==',
        cookie: 'sid=session-of-the-edge; app=kept; interaction-abc=x',
        dpop: 'proof',
      }),
    );
    expect(res.status).toBe(201);
    const h = seen[0].headers;
    expect(h['x-identity']).not.toBe('forged');
    expect(h['x-forwarded-for']).toBe('127.0.0.1');
    for (const name of ['forwarded', 'x-smuggled', 'proxy-authorization', 'dpop', 'authorization']) expect([name, h[name]]).toEqual([name, undefined]);
    expect(h.cookie).toBe('app=kept');
    expect(h.host).toBe(`127.0.0.1:${upstream.port}`);
  });

  it('refuses a request that frames its body two ways (Content-Length and Transfer-Encoding) before any upstream sees it', async () => {
    const before = upstream.seen.length;
    const url = new URL(server.baseUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          'POST /acme/resources/invoices/health HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /acme/resources/invoices/admin HTTP/1.1\r\nHost: x\r\n\r\n',
        );
      });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(upstream.seen.length).toBe(before);
  });

  it('passes the caller token only to a resource that asks for it, under its own identity header', async () => {
    const etag = (await adminCall(server, contract, 'GET', '/acme/configuration/resources/other', admin)).headers.get('etag')!;
    await adminCall(server, contract, 'PATCH', '/acme/configuration/resources/other', admin, { forward_token: true, identity_header: 'x-caller' }, { 'if-match': etag });
    const { seen } = await through(() => raw('/acme/resources/other/a', 'GET', { ...bearer(bob), 'x-caller': 'forged', 'x-identity': 'forged' }));
    expect(seen[0].headers.authorization).toBe(`Bearer ${bob}`);
    expect(seen[0].headers['x-identity']).toBeUndefined();
    expect((await jwtPayload(seen[0].headers['x-caller'] as string)).aud).toBe(OTHER);
  });

  it('never lets a path reach another route or upstream: dot segments, encoded separators, double slashes and backslashes are refused (400)', async () => {
    for (const path of [
      '/acme/resources/invoices/health/../invoices/1',
      '/acme/resources/invoices/health/%2e%2e/admin',
      '/acme/resources/invoices/health/%2E%2E/admin',
      '/acme/resources/invoices/health%2f..%2fadmin',
      '/acme/resources/invoices/health%2F..%2Fadmin',
      '/acme/resources/invoices/health/..%5cadmin',
      '/acme/resources/invoices/health\\..\\admin',
      '/acme/resources/invoices//admin',
      '/acme/resources/invoices/health/%252e%252e/admin',
      '/acme/resources/invoices/%2e%2e/%2e%2e/other/x',
      '/acme/resources/invoices/health/../../other/x',
    ]) {
      const { res, seen } = await through(() => raw(path, 'GET', {}));
      expect([path, res.status, seen.length]).toEqual([path, 400, 0]);
    }
    // The one path that is allowed is the one the upstream gets, encoded one way.
    const { res, seen } = await through(() => raw('/acme/resources/invoices/invoices/a%20b%3Bc', 'GET', bearer(alice)));
    expect(res.status).toBe(201);
    expect(seen[0].url).toBe('/api/invoices/a%20b;c');
  });
});

describe('proxy: upstream failures', () => {
  /** The answer through the contract-checking fetch: proxy errors are validated against openapi/edge.yaml. */
  async function checked(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    const res = await contract.fetch(`${server.baseUrl}${path}`, { headers });
    return { status: res.status, body: await res.json() };
  }

  it('answers 502 when the upstream is down', async () => {
    const res = await checked('/acme/resources/down/x');
    expect(res.status).toBe(502);
    expect(res.body.error).toBe('upstream_unavailable');
  });

  it('answers 504 when the upstream does not answer within PROXY_TIMEOUT_MS', async () => {
    const res = await checked('/acme/resources/invoices/hang', bearer(alice));
    expect(res.status).toBe(504);
    expect(res.body.error).toBe('upstream_timeout');
  });

  it('answers 404 for an unknown resource or tenant, 403 for what no route covers', async () => {
    expect((await checked('/acme/resources/nothing/x', bearer(alice))).status).toBe(404);
    expect((await checked('/nobody/resources/invoices/x', bearer(alice))).status).toBe(404);
    expect((await checked('/acme/resources/invoices/admin', bearer(alice))).status).toBe(403);
  });
});
