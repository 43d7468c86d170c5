/**
 * The OpenAPI contracts in openapi/: they lint cleanly with Redocly, every $ref resolves, and the
 * response checker in test/support/openapi.ts accepts conforming responses and rejects others.
 * Real responses are checked by the endpoint tests, which call expectResponseMatches.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  OPENAPI_DIR,
  OPENAPI_GROUPS,
  expectResponseMatches,
  findOperation,
  loadOpenApi,
  validateResponse,
} from './support/openapi.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ISSUER = 'http://localhost:8080/demo';
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
const TOKEN_HEADERS = { ...JSON_HEADERS, 'cache-control': 'no-store', pragma: 'no-cache' };
const HTML_HEADERS = { 'content-type': 'text/html; charset=utf-8' };
const HTML = '<!doctype html><html><body>ok</body></html>';
const PAGE_POLICY = "default-src 'self'; script-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'";

/** Splits the concatenated JSON documents `redocly lint --format=json` prints (one per file). */
function parseConcatenatedJson(text: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)));
  }
  return out;
}

describe('OpenAPI documents', () => {
  it('pass redocly lint with no errors', () => {
    const files = OPENAPI_GROUPS.map((g) => path.join('openapi', `${g}.yaml`));
    const cli = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const run = spawnSync(process.execPath, [cli, 'lint', ...files, '--format=json'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 120_000,
    });
    type Problem = { ruleId: string; severity: string; message: string; location: { source: { ref: string }; pointer: string }[] };
    const reports = parseConcatenatedJson(run.stdout) as { totals: { errors: number; warnings: number }; problems: Problem[] }[];
    const errors = reports
      .flatMap((r) => r.problems)
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location.map((l) => `${l.source.ref}${l.pointer}`).join(', ')}`);
    // One JSON report per file; a crash or a config error prints none and exits non-zero.
    expect({ reports: reports.length, errors, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ reports: files.length, errors: [], stderr: '' });
    expect(reports.reduce((n, r) => n + r.totals.errors, 0)).toBe(0);
    expect(run.status).toBe(0);
  });

  it.each(OPENAPI_GROUPS)('%s.yaml resolves and carries the common header', (group) => {
    const doc = loadOpenApi(group);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ version: '0.1.0', license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } });
    expect(doc.servers).toEqual([
      expect.objectContaining({ url: '{base}/{tenant}', variables: { base: { default: 'http://localhost:8080' }, tenant: { default: 'demo' } } }),
    ]);
    expect(JSON.stringify(doc)).not.toContain('"$ref"');
  });

  it('has one document per group', () => {
    expect(OPENAPI_DIR).toBe(path.join(ROOT, 'openapi'));
    expect(findOperation('token', 'post', '/oauth/token?x=1').pathTemplate).toBe('/oauth/token');
    expect(() => findOperation('token', 'GET', '/token')).toThrow(/no GET \/token/);
    expect(() => findOperation('token', 'POST', '/nope')).toThrow(/no path matching/);
    expect(() => loadOpenApi('../package')).toThrow(/Invalid OpenAPI group/);
  });
});

describe('expectResponseMatches accepts conforming responses', () => {
  const ok: [string, string, string, { status: number; headers: Record<string, string>; body?: unknown }][] = [
    ['authorize', 'GET', '/authorize?client_id=app', { status: 302, headers: { location: `${ISSUER}/login?interaction=abc` }, body: '' }],
    ['authorize', 'POST', '/authorize', { status: 302, headers: { location: 'https://app.example/cb?code=c&state=s&iss=x' } }],
    ['authorize', 'GET', '/authorize', { status: 200, headers: HTML_HEADERS, body: HTML }],
    ['authorize', 'GET', '/authorize', { status: 400, headers: HTML_HEADERS, body: HTML }],
    [
      'token',
      'POST',
      '/token',
      { status: 200, headers: TOKEN_HEADERS, body: { access_token: 'at', token_type: 'Bearer', expires_in: 300, refresh_token: 'rt', scope: 'openid', id_token: 'a.b.c' } },
    ],
    ['token', 'POST', '/oauth/token', { status: 200, headers: TOKEN_HEADERS, body: '{"access_token":"at","token_type":"Bearer","expires_in":60}' }],
    ['token', 'POST', '/token', { status: 400, headers: JSON_HEADERS, body: { error: 'invalid_grant', error_description: 'code already used' } }],
    ['token', 'POST', '/token', { status: 401, headers: { ...JSON_HEADERS, 'www-authenticate': 'Basic realm="demo"' }, body: { error: 'invalid_client' } }],
    ['token', 'POST', '/token', { status: 500, headers: JSON_HEADERS, body: { error: 'server_error' } }],
    [
      'introspect',
      'POST',
      '/introspect',
      {
        status: 200,
        headers: JSON_HEADERS,
        body: { active: true, scope: 'openid', client_id: 'app', username: 'alice', token_type: 'Bearer', exp: 2, iat: 1, nbf: 1, sub: 'u1', aud: ['app'], iss: ISSUER, jti: 'j', sid: 's' },
      },
    ],
    ['introspect', 'POST', '/introspect', { status: 200, headers: JSON_HEADERS, body: { active: true, token_type: 'refresh_token', aud: 'app' } }],
    ['introspect', 'POST', '/introspect', { status: 200, headers: JSON_HEADERS, body: { active: false } }],
    ['introspect', 'POST', '/introspect', { status: 400, headers: JSON_HEADERS, body: { error: 'invalid_request' } }],
    ['revoke', 'POST', '/revoke', { status: 200, headers: {}, body: '' }],
    ['revoke', 'POST', '/revoke', { status: 400, headers: JSON_HEADERS, body: { error: 'invalid_request' } }],
    [
      'userinfo',
      'GET',
      '/userinfo',
      {
        status: 200,
        headers: { ...JSON_HEADERS, 'cache-control': 'no-store' },
        body: { sub: 'u1', name: 'Alice A', given_name: 'Alice', family_name: 'A', updated_at: 1700000000, email: 'alice@example.com', email_verified: true },
      },
    ],
    ['userinfo', 'POST', '/oauth/userinfo', { status: 200, headers: { ...JSON_HEADERS, 'cache-control': 'no-store' }, body: { sub: 'u1' } }],
    ['userinfo', 'GET', '/userinfo', { status: 401, headers: { 'www-authenticate': 'Bearer realm="demo"' }, body: '' }],
    ['userinfo', 'GET', '/userinfo', { status: 401, headers: { ...JSON_HEADERS, 'www-authenticate': 'Bearer error="invalid_token"' }, body: { error: 'invalid_token' } }],
    ['userinfo', 'GET', '/userinfo', { status: 403, headers: { ...JSON_HEADERS, 'www-authenticate': 'Bearer error="insufficient_scope"' }, body: { error: 'insufficient_scope' } }],
    ['logout', 'GET', '/logout', { status: 302, headers: { location: 'https://app.example/bye?state=s' } }],
    ['logout', 'POST', '/logout', { status: 200, headers: { ...HTML_HEADERS, 'content-security-policy': PAGE_POLICY }, body: HTML }],
    ['logout', 'GET', '/logout', { status: 400, headers: HTML_HEADERS, body: HTML }],
    [
      'jwks',
      'GET',
      '/.well-known/jwks.json',
      {
        status: 200,
        headers: { ...JSON_HEADERS, 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' },
        body: {
          keys: [
            { kty: 'EC', kid: 'k1', use: 'sig', alg: 'ES256', crv: 'P-256', x: 'abc_-', y: 'def' },
            { kty: 'RSA', kid: 'k2', use: 'sig', alg: 'RS256', n: 'nnn', e: 'AQAB' },
            { kty: 'OKP', kid: 'k3', use: 'sig', alg: 'EdDSA', crv: 'Ed25519', x: 'xyz' },
          ],
        },
      },
    ],
    [
      'metadata',
      'GET',
      '/.well-known/openid-configuration',
      {
        status: 200,
        headers: { ...JSON_HEADERS, 'access-control-allow-origin': '*' },
        body: {
          issuer: ISSUER,
          authorization_endpoint: `${ISSUER}/authorize`,
          token_endpoint: `${ISSUER}/token`,
          jwks_uri: `${ISSUER}/.well-known/jwks.json`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['ES256'],
          authorization_response_iss_parameter_supported: true,
          request_parameter_supported: false,
          some_future_member: 1,
        },
      },
    ],
  ];

  it.each(ok)('%s %s %s', (group, method, p, res) => {
    expect(() => expectResponseMatches(group, method, p, res)).not.toThrow();
  });

  it('accepts fetch Headers and Buffer bodies', () => {
    const headers = new Headers({ 'Content-Type': 'application/json', 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    const body = Buffer.from(JSON.stringify({ access_token: 'at', token_type: 'Bearer', expires_in: 1 }));
    expect(validateResponse('token', 'post', '/token', { status: 200, headers, body })).toEqual([]);
  });
});

describe('expectResponseMatches rejects departures from the contract', () => {
  const token = { access_token: 'at', token_type: 'Bearer', expires_in: 300 };

  it('a token response with token_type mac', () => {
    expect(() => expectResponseMatches('token', 'POST', '/token', { status: 200, headers: TOKEN_HEADERS, body: { ...token, token_type: 'mac' } })).toThrow(
      /body \/token_type must be equal to one of the allowed values/,
    );
  });

  it('an error body without error', () => {
    expect(() => expectResponseMatches('token', 'POST', '/token', { status: 400, headers: JSON_HEADERS, body: { error_description: 'bad' } })).toThrow(
      /must have required property 'error'/,
    );
    expect(() => expectResponseMatches('revoke', 'POST', '/revoke', { status: 401, headers: JSON_HEADERS, body: {} })).toThrow(/required property 'error'/);
  });

  it.each([
    ['an error code the status does not allow', 'token', 'POST', '/token', { status: 400, headers: JSON_HEADERS, body: { error: 'invalid_client' } }, /error must be equal to one of/],
    ['a missing Cache-Control header', 'token', 'POST', '/token', { status: 200, headers: { ...JSON_HEADERS, pragma: 'no-cache' }, body: token }, /required header Cache-Control is missing/],
    ['a cacheable token response', 'token', 'POST', '/token', { status: 200, headers: { ...TOKEN_HEADERS, 'cache-control': 'max-age=60' }, body: token }, /header Cache-Control/],
    ['an undeclared status', 'token', 'POST', '/token', { status: 418, headers: JSON_HEADERS, body: { error: 'x' } }, /status 418 is not declared/],
    ['the wrong content type', 'token', 'POST', '/token', { status: 200, headers: { ...TOKEN_HEADERS, 'content-type': 'text/plain' }, body: 'x' }, /does not match the declared application\/json/],
    ['a missing content type', 'token', 'POST', '/token', { status: 200, headers: { 'cache-control': 'no-store', pragma: 'no-cache' }, body: token }, /Content-Type header is missing/],
    ['an empty body where one is required', 'token', 'POST', '/token', { status: 200, headers: TOKEN_HEADERS, body: '' }, /body is empty/],
    ['text that is not JSON', 'token', 'POST', '/token', { status: 200, headers: TOKEN_HEADERS, body: '<html>' }, /not valid JSON/],
    ['a body where none is declared', 'revoke', 'POST', '/revoke', { status: 200, headers: JSON_HEADERS, body: {} }, /declares no content/],
    ['an inactive token with claims', 'introspect', 'POST', '/introspect', { status: 200, headers: JSON_HEADERS, body: { active: false, sub: 'u1' } }, /body/],
    ['introspection without active', 'introspect', 'POST', '/introspect', { status: 200, headers: JSON_HEADERS, body: { scope: 'openid' } }, /required property 'active'/],
    ['userinfo without sub', 'userinfo', 'GET', '/userinfo', { status: 200, headers: { ...JSON_HEADERS, 'cache-control': 'no-store' }, body: { name: 'A' } }, /required property 'sub'/],
    ['a 401 invalid_client without a challenge', 'token', 'POST', '/token', { status: 401, headers: JSON_HEADERS, body: { error: 'invalid_client' } }, /required header WWW-Authenticate/],
    ['a 401 without a Bearer challenge', 'userinfo', 'GET', '/userinfo', { status: 401, headers: JSON_HEADERS, body: { error: 'invalid_token' } }, /required header WWW-Authenticate/],
    ['a redirect without Location', 'authorize', 'GET', '/authorize', { status: 302, headers: {} }, /required header Location/],
    ['JSON from an HTML page', 'logout', 'GET', '/logout', { status: 400, headers: JSON_HEADERS, body: { error: 'x' } }, /does not match the declared text\/html/],
    [
      'a private key in the JWKS',
      'jwks',
      'GET',
      '/.well-known/jwks.json',
      { status: 200, headers: { ...JSON_HEADERS, 'cache-control': 'public, max-age=60' }, body: { keys: [{ kty: 'EC', kid: 'k', use: 'sig', alg: 'ES256', crv: 'P-256', x: 'a', y: 'b', d: 'secret' }] } },
      /property name must be valid/,
    ],
    ['an uncacheable JWKS', 'jwks', 'GET', '/.well-known/jwks.json', { status: 200, headers: { ...JSON_HEADERS, 'cache-control': 'no-store' }, body: { keys: [] } }, /header Cache-Control/],
    ['metadata without issuer', 'metadata', 'GET', '/.well-known/oauth-authorization-server', { status: 200, headers: JSON_HEADERS, body: { token_endpoint: 'x' } }, /required property 'issuer'/],
  ] as const)('%s', (_name, group, method, p, res, message) => {
    expect(() => expectResponseMatches(group, method, p, res)).toThrow(message);
  });

  it('lists every problem at once', () => {
    const problems = validateResponse('token', 'POST', '/token', { status: 200, headers: JSON_HEADERS, body: { token_type: 'mac' } });
    expect(problems).toEqual(
      expect.arrayContaining([
        'required header Cache-Control is missing',
        'required header Pragma is missing',
        "body (root) must have required property 'access_token'",
        "body (root) must have required property 'expires_in'",
      ]),
    );
  });
});
