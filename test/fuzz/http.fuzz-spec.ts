/**
 * Fuzzes every registered route over real HTTP (see requests.ts for what is sent). Property:
 * no answer is a 5xx, every request gets an answer, and the server still answers afterwards.
 *
 * In `npm test`: FUZZ_RUNS (default 300) runs from a fixed seed. `npm run fuzz` runs many more
 * from a random seed and prints it; FUZZ_SEED=<n> (and FUZZ_PATH from a failure's report)
 * replays one.
 */
import fc from 'fast-check';
import { appendFileSync } from 'node:fs';
import * as oauth from 'oauth4webapi';
import { routesOf } from '../../src/auth/route-methods.js';
import { ContractFetch } from '../support/contract-fetch.js';
import { basic, RelyingParty } from '../support/rp.js';
import { ALICE_PASSWORD, BOOTSTRAP_YAML, REDIRECT, SERVICE_SECRET, startTestServer, type TestServer, THIRD_SECRET, WEB_SECRET } from '../support/server.js';
import { type RawAnswer, type RawRequest, rawRequest, serialize } from './raw-http.js';
import { anyRequest, type Known, requestTo } from './requests.js';
import { documented, documentedPath, type FuzzRoute, fuzzTable } from './route-table.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? 20261127 : process.env.FUZZ_SEED === 'random' ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : Number(process.env.FUZZ_SEED);
const PATH = process.env.FUZZ_PATH;
const PER_ROUTE = Math.max(5, Math.ceil(RUNS / 30));
/** Generous: a run takes a few milliseconds; a failure's shrinking takes longer. */
const TIME_LIMIT = 120_000 + RUNS * 200;

/** The test bootstrap and a tenant whose clients and scopes are named like Object.prototype properties. */
const BOOTSTRAP = `${BOOTSTRAP_YAML}
  - id: proto
    clients:
      - client_id: constructor
        client_secret: "${WEB_SECRET}"
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code, refresh_token]
        scope: "openid profile toString __proto__ hasOwnProperty offline_access"
      - client_id: __proto__
        redirect_uris: ["${REDIRECT}"]
        grant_types: [authorization_code, refresh_token]
        scope: "openid profile toString __proto__ hasOwnProperty offline_access"
        first_party: true
    users:
      - username: alice
        password: "${ALICE_PASSWORD}"
`;

let server: TestServer;
let port: number;
let table: FuzzRoute[];
/** What the requests to tenant acme (most), other and nobody draw from; and those to tenant proto. */
let known: Known;
let knownProto: Known;

beforeAll(async () => {
  server = await startTestServer(BOOTSTRAP);
  port = Number(new URL(server.baseUrl).port);
  table = fuzzTable(routesOf(server.app)!.list(), documented());
  const host = new URL(server.baseUrl).host;
  const origins = ['http://127.0.0.1:9999', server.baseUrl, 'null'];
  const rp = await RelyingParty.discover(server, new ContractFetch());
  const browser = rp.browser();
  const user = await rp.tokens({}, browser);
  const service = await rp.clientCredentials('service');
  const pending = await rp.signIn(browser, {});
  const spa = await rp.tokens({ clientId: 'spa', scope: 'openid offline_access' });
  const common = {
    redirect_uri: [REDIRECT],
    post_logout_redirect_uri: ['http://127.0.0.1:9999/bye'],
    response_type: ['code', 'token', 'code id_token'],
    response_mode: ['query', 'fragment', 'form_post'],
    grant_type: ['authorization_code', 'refresh_token', 'client_credentials', 'password'],
    code_challenge: ['E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'],
    code_challenge_method: ['S256', 'plain'],
    token_type_hint: ['access_token', 'refresh_token'],
    prompt: ['none', 'login', 'consent', 'create'],
    username: ['alice', 'bob', '__proto__'],
    password: ['wrong password'],
    decision: ['allow', 'deny'],
    confirm: ['yes'],
  };
  known = {
    host,
    tenants: ['acme', 'other', 'nobody'],
    values: {
      ...common,
      client_id: ['web', 'spa', 'third', 'service', 'coded'],
      client_secret: [WEB_SECRET, THIRD_SECRET, SERVICE_SECRET],
      scope: ['openid', 'openid profile email offline_access', 'orders:read', 'toString'],
      code: [rp.codeParams(pending).get('code')!],
      code_verifier: [pending.verifier],
      refresh_token: [user.refresh_token!, spa.refresh_token!],
      token: [user.access_token, user.refresh_token!, service.access_token, user.id_token!],
      access_token: [user.access_token],
      id_token_hint: [user.id_token!],
    },
    authorizations: [basic('web', WEB_SECRET), basic('service', SERVICE_SECRET), basic('third', THIRD_SECRET), `Bearer ${user.access_token}`, `Bearer ${service.access_token}`],
    cookies: browser.cookies(),
    origins,
  };
  const proto = await RelyingParty.discover(server, new ContractFetch(), 'proto');
  proto.auths.set('__proto__', () => oauth.None());
  const protoBrowser = proto.browser();
  const protoUser = await proto.tokens({ clientId: '__proto__', scope: 'openid profile toString __proto__ hasOwnProperty offline_access' }, protoBrowser);
  knownProto = {
    host,
    tenants: ['proto'],
    values: {
      ...common,
      client_id: ['constructor', '__proto__'],
      client_secret: [WEB_SECRET],
      scope: ['openid toString', 'openid __proto__ hasOwnProperty offline_access'],
      refresh_token: [protoUser.refresh_token!],
      token: [protoUser.access_token, protoUser.refresh_token!],
      id_token_hint: [protoUser.id_token!],
    },
    authorizations: [basic('constructor', WEB_SECRET), `Bearer ${protoUser.access_token}`],
    cookies: protoBrowser.cookies(),
    origins,
  };
});

afterAll(async () => {
  await server?.close();
});

/** Status counts by method, path and status (FUZZ_STATS=1), to see how far the requests get. */
const stats = new Map<string, number>();
afterAll(() => {
  if (process.env.FUZZ_STATS) process.stdout.write(`${[...stats].sort().map(([k, n]) => `${n}\t${k}`).join('\n')}\n`);
});

/** Sends `r`; fails on a 5xx, on no answer, and when the server does not answer a plain request afterwards. */
async function check(r: RawRequest): Promise<void> {
  // FUZZ_LOG=<file>: every request, base64, one a line, for a replay outside the fuzzer.
  if (process.env.FUZZ_LOG) appendFileSync(process.env.FUZZ_LOG, `${serialize(r).toString('base64')}\n`);
  let answer: RawAnswer;
  try {
    answer = await rawRequest(port, r);
  } catch (e) {
    throw new Error(`${(e as Error).message}\nrequest: ${shown(r)}`);
  }
  if (process.env.FUZZ_STATS) {
    const key = `${r.method} ${r.target.split('?')[0].slice(0, 80)} ${answer.status}`;
    stats.set(key, (stats.get(key) ?? 0) + 1);
  }
  if (answer.status >= 500) throw new Error(`answered ${answer.status}\nrequest: ${shown(r)}\nanswer: ${JSON.stringify(`${answer.head}\r\n\r\n${answer.body}`.slice(0, 1500))}`);
  const alive = await fetch(`${server.baseUrl}/acme/.well-known/openid-configuration`);
  await alive.arrayBuffer();
  if (alive.status !== 200) throw new Error(`the server no longer answers (${alive.status}) after: ${shown(r)}`);
}

function shown(r: RawRequest): string {
  const text = serialize(r).toString('latin1');
  return JSON.stringify(text.length > 1500 ? `${text.slice(0, 1500)}... (${text.length} bytes)` : text);
}

describe('the fuzz table', () => {
  it('has every registered route, each with a documented operation for each of its methods', () => {
    const docs = documented();
    expect(table.length).toBeGreaterThanOrEqual(10);
    const undocumented = table.flatMap((r) => r.methods.filter((m) => !docs.operations.get(documentedPath(r.url))?.has(m)).map((m) => `${m} ${r.url}`));
    expect(undocumented).toEqual([]);
    const registered = new Set(table.map((r) => documentedPath(r.url)));
    expect([...docs.operations.keys()].filter((p) => !registered.has(p))).toEqual([]);
    expect(table.find((r) => r.url === '/:tenant/token')?.params).toEqual(expect.arrayContaining(['grant_type', 'code', 'refresh_token', 'client_id']));
  });
});

describe('HTTP fuzzing', () => {
  it(`answers ${RUNS} random requests across every route without a 5xx (seed ${SEED})`, async () => {
    process.stdout.write(`fuzz: ${RUNS} runs, seed ${SEED}${PATH ? `, path ${PATH}` : ''} (replay: FUZZ_RUNS=${RUNS} FUZZ_SEED=${SEED} npm run fuzz)\n`);
    await fc.assert(
      fc.asyncProperty(anyRequest(known, table), (r) => check(r)),
      { numRuns: RUNS, seed: SEED, path: PATH },
    );
  }, TIME_LIMIT);

  it('sends each route a few requests of its own, and as many to the tenant of prototype names (so a route the draw missed is still reached)', async () => {
    for (const k of [known, knownProto]) {
      for (const route of table) await fc.assert(fc.asyncProperty(requestTo(k, route), (r) => check(r)), { numRuns: PER_ROUTE, seed: SEED });
    }
  }, TIME_LIMIT);
});
