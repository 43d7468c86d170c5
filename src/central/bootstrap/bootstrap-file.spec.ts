import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp-dir.js';
import { readBootstrapFile } from './bootstrap-file.js';

const dir = tempDir('bootstrap-file-');
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('bootstrap file', () => {
  it('reads YAML and JSON with defaults', () => {
    const yaml = readBootstrapFile(file('a.yaml', 'tenants:\n  - id: acme\n    clients:\n      - client_id: spa\n        redirect_uris: ["http://127.0.0.1/cb"]\n'), 8);
    expect(yaml[0]).toMatchObject({ id: 'acme', settings: { securityProfile: 'baseline', accessTokenTtl: 300, signingAlg: 'ES256', sessionMaxAge: 7 * 24 * 3600, sessionIdleTimeout: 3 * 24 * 3600 } });
    expect(readBootstrapFile(file('b.yaml', 'tenants: [{ id: acme, session_max_age: 36000 }]'), 8)[0].settings.sessionMaxAge).toBe(36000);
    expect(yaml[0].clients[0]).toMatchObject({ clientId: 'spa', tokenEndpointAuthMethod: 'none', grantTypes: ['authorization_code'], scope: ['openid'] });
    expect(yaml[0].clients[0].idTokenSignedResponseAlg).toBeUndefined();
    const json = readBootstrapFile(file('a.json', JSON.stringify({ tenants: [{ id: 'x', users: [{ username: 'u', password: 'a long passphrase', email_verified: true }] }] })), 8);
    expect(json[0].users[0]).toEqual({ username: 'u', password: 'a long passphrase', claims: { email_verified: true } });
  });

  it('reads first_party_native (native apps), absent by default', () => {
    const [t] = readBootstrapFile(file('native.yaml', 'tenants:\n  - id: acme\n    clients:\n      - { client_id: app, redirect_uris: ["http://127.0.0.1/cb"], first_party_native: true }\n      - { client_id: spa, redirect_uris: ["http://127.0.0.1/cb"] }\n'), 8);
    expect(t.clients[0].firstPartyNative).toBe(true);
    expect(t.clients[1].firstPartyNative).toBeUndefined();
    expect(() => readBootstrapFile(file('native-bad.yaml', 'tenants: [{ id: acme, clients: [{ client_id: app, first_party_native: "yes" }] }]'), 8)).toThrow('tenants[0].clients[0].first_party_native');
  });

  it('reads resources, permissions, roles and the roles of users', () => {
    const text = [
      'tenants:',
      '  - id: acme',
      '    resources: [{ id: invoices, identifier: "https://api.example.com/invoices", scopes: [invoices:read], upstream_url: "http://127.0.0.1:8080" }]',
      '    permissions: [{ id: central:read, resource: central }, { id: invoices:approve, resource: invoices, description: Approve }]',
      '    roles: [{ id: admin, name: Admins, permissions: [central:read] }]',
      '    users: [{ username: root, password: "a long passphrase", roles: [admin] }]',
    ].join('\n');
    const [t] = readBootstrapFile(file('access.yaml', text), 8);
    expect(t.resources).toEqual([{ resourceId: 'invoices', identifier: 'https://api.example.com/invoices', scopes: ['invoices:read'], upstreamUrl: 'http://127.0.0.1:8080' }]);
    expect(t.permissions).toEqual([{ permissionId: 'central:read', resource: 'central' }, { permissionId: 'invoices:approve', resource: 'invoices', description: 'Approve' }]);
    expect(t.roles).toEqual([{ roleId: 'admin', name: 'Admins', permissions: ['central:read'] }]);
    expect(t.users[0].roles).toEqual(['admin']);
  });

  it('reads a resource\'s proxy routes, identity header and token forwarding, as the admin API takes them', () => {
    const text = [
      'tenants:',
      '  - id: acme',
      '    resources:',
      '      - id: invoices',
      '        identifier: "https://api.example.com/invoices"',
      '        upstream_url: "http://127.0.0.1:8080"',
      '        identity_header: x-caller',
      '        forward_token: true',
      '        routes:',
      '          - { methods: [GET], path: /health, public: true }',
      '          - { methods: [GET, POST, GET], path: "/invoices/**", permissions: [invoices:approve] }',
      '          - { methods: ["*"], path: /me }',
    ].join('\n');
    const [t] = readBootstrapFile(file('routes.yaml', text), 8);
    expect(t.resources![0]).toEqual({
      resourceId: 'invoices',
      identifier: 'https://api.example.com/invoices',
      scopes: [],
      upstreamUrl: 'http://127.0.0.1:8080',
      identityHeader: 'x-caller',
      forwardToken: true,
      routes: [
        { methods: ['GET'], path: '/health', permissions: [], public: true },
        { methods: ['GET', 'POST'], path: '/invoices/**', permissions: ['invoices:approve'] },
        { methods: ['*'], path: '/me', permissions: [] },
      ],
    });
  });

  const resource = (extra: string) => `tenants: [{ id: acme, resources: [{ id: r, identifier: "https://x", ${extra} }] }]`;
  it.each([
    [resource('routes: { methods: [GET], path: / }'), 'tenants[0].resources[0].routes: must be a list'],
    [resource('routes: [{ methods: [GET] }]'), 'tenants[0].resources[0].routes[0].path: must be a non-empty string'],
    [resource('routes: [{ methods: [], path: / }]'), 'tenants[0].resources[0].routes[0].methods: must list one or more methods'],
    [resource('routes: [{ methods: GET, path: / }]'), 'tenants[0].resources[0].routes[0].methods: must be a list'],
    [resource('routes: [{ methods: [GET], path: /, pubic: true }]'), 'tenants[0].resources[0].routes[0].pubic: unknown field'],
    [resource('routes: [{ methods: [GET], path: /, public: "yes" }]'), 'tenants[0].resources[0].routes[0].public: must be true or false'],
    [resource('routes: [{ methods: [GET], path: /a }, { methods: [FETCH], path: /b }]'), 'tenants[0].resources[0].routes[1].methods: must be one or more of GET'],
    [resource('routes: [{ methods: [GET], path: "/a/../b" }]'), 'tenants[0].resources[0].routes[0].path: has a bad segment ".."'],
    [resource('routes: [{ methods: [GET], path: "/**/b" }]'), 'tenants[0].resources[0].routes[0].path: may have "**" as its last segment only'],
    [resource('routes: [{ methods: [GET], path: a }]'), 'tenants[0].resources[0].routes[0].path: must start with "/"'],
    [resource('routes: [{ methods: [GET], path: /, permissions: ["no spaces"] }]'), 'tenants[0].resources[0].routes[0].permissions: must be permission ids'],
    [resource('routes: [{ methods: [GET], path: /, public: true, permissions: [p] }]'), 'tenants[0].resources[0].routes[0]: is public: it cannot require permissions'],
    [resource('identity_header: authorization'), 'tenants[0].resources[0].identity_header: must be a lower-case header name'],
    [resource('forward_token: 1'), 'tenants[0].resources[0].forward_token: must be true or false'],
  ])('names the route field that is wrong: %s', (text, message) => {
    const p = file('bad-route.yaml', text);
    expect(() => readBootstrapFile(p, 8)).toThrow(`${p}: ${message}`);
  });

  it.each([
    ['tenants: [{ id: acme, roles: [{ id: r, permissions: [1] }] }]', 'tenants[0].roles[0].permissions[0]: must be a non-empty string'],
    ['tenants: [{ id: acme, permissions: [{ id: p }] }]', 'tenants[0].permissions[0].resource: must be a non-empty string'],
    ['tenants: [{ id: acme, resources: [{ id: r, identifier: "https://x", audience: y }] }]', 'tenants[0].resources[0].audience: unknown field'],
    ['tenants: [{ id: acme, users: [{ username: u, password: "a long passphrase", roles: admin }] }]', 'tenants[0].users[0].roles: must be a list'],
    ['tenants: [{ id: acme, access_token_ttl: -1 }]', 'tenants[0].access_token_ttl: must be a positive whole number of seconds'],
    ['tenants: [{ id: acme, session_max_age: 0 }]', 'tenants[0].session_max_age: must be a positive whole number of seconds'],
    ['tenants: [{ id: acme, session_idle_timeout: 1.5 }]', 'tenants[0].session_idle_timeout: must be a positive whole number of seconds'],
    ['tenants: [{ id: acme, clients: [{ client_id: w, redirect_uris: [1] }] }]', 'tenants[0].clients[0].redirect_uris[0]: must be a non-empty string'],
    ['tenants: [{ id: acme, clients: [{ client_id: w, client_secret: short }] }]', 'tenants[0].clients[0].client_secret: must be at least 32 characters'],
    ['tenants: [{ id: acme, clients: [{ client_id: w, token_endpoint_auth_method: client_secret_post }] }]', 'tenants[0].clients[0].client_secret: is required for token_endpoint_auth_method client_secret_post'],
    ['tenants: [{ id: acme, colour: red }]', 'tenants[0].colour: unknown field'],
    ['tenants: [{ id: acme, clients: [{ client_id: w, grant_types: [password] }] }]', 'tenants[0].clients[0].grant_types[0]: must be one of'],
    ['tenants: [{ id: acme, clients: [{ client_id: w, id_token_signed_response_alg: HS256 }] }]', 'tenants[0].clients[0].id_token_signed_response_alg: must be one of ES256, RS256, EdDSA'],
    ['tenants: {', 'is not valid YAML or JSON'],
    ['tenants: [{ id: acme, users: [{ username: u, password: short }] }]', 'tenants[0].users[0].password: must be at least 8 characters'],
    ['tenants: [{ id: acme, users: [{ username: u, password: u }, { username: w, password: Password123! }] }]', 'tenants[0].users[0].password: must be at least 8 characters'],
    ['tenants: [{ id: acme, users: [{ username: bob, password: "a good one" }, { username: w, password: Password123! }] }]', 'tenants[0].users[1].password: is too common'],
    ['tenants: [{ id: acme, users: [{ username: Marguerite, password: marguerite }] }]', 'tenants[0].users[0].password: must not be the username'],
    ['tenants: [{ id: acme, users: [{ username: m, email: Marg@Example.com, password: marg@example.com }] }]', 'tenants[0].users[0].password: must not be the e-mail address'],
    ['tenants: [{ id: acme, __proto__: { clients: [] } }]', 'tenants[0].__proto__: unknown field'],
    ['{ "tenants": [{ "id": "acme", "clients": [{ "client_id": "w", "constructor": "x" }] }] }', 'tenants[0].clients[0].constructor: unknown field'],
    ['{ "__proto__": { "tenants": [] } }', '__proto__: unknown field'],
  ])('names the file, the path and the problem: %s', (text, message) => {
    const p = file('bad.yaml', text);
    expect(() => readBootstrapFile(p, 8)).toThrow(`${p}: ${message}`);
  });

  it('takes prototype names as client ids and scopes like any other, and pollutes nothing', () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const clients = names.map((id) => ({ client_id: id, scope: `openid ${names.join(' ')}` }));
    for (const [name, text] of [['p.json', JSON.stringify({ tenants: [{ id: 'acme', clients }] })], ['p.yaml', `tenants:\n  - id: acme\n    clients:\n${names.map((id) => `      - { client_id: "${id}", scope: "openid ${names.join(' ')}" }\n`).join('')}`]]) {
      const [tenant] = readBootstrapFile(file(name, text), 8);
      expect(tenant.clients.map((c) => c.clientId)).toEqual(names);
      for (const c of tenant.clients) expect(c.scope).toEqual(['openid', ...names]);
    }
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).clients).toBeUndefined();
  });

  it('reads the security profiles, `strict` as fapi2-security (what its events are upcast to), and refuses any other', () => {
    const profile = (value: string) => readBootstrapFile(file(`p-${value}.yaml`, `tenants: [{ id: acme, security_profile: ${value} }]`), 8)[0].settings.securityProfile;
    for (const p of ['baseline', 'fapi2-security', 'fapi2-message-signing']) expect(profile(p)).toBe(p);
    expect(profile('strict')).toBe('fapi2-security');
    expect(() => profile('fapi1')).toThrow(/security_profile/);
  });

  it('reads front-channel logout metadata, and says when its flag is not a boolean', () => {
    const client = (extra: string) => `tenants:\n  - id: acme\n    clients:\n      - client_id: rp\n        redirect_uris: ["http://127.0.0.1/cb"]\n${extra}`;
    const read = readBootstrapFile(file('fc.yaml', client('        frontchannel_logout_uri: https://rp.example/fc\n        frontchannel_logout_session_required: true\n')), 8);
    expect(read[0].clients[0]).toMatchObject({ frontchannelLogoutUri: 'https://rp.example/fc', frontchannelLogoutSessionRequired: true });
    expect(() => readBootstrapFile(file('fc-bad.yaml', client('        frontchannel_logout_session_required: "yes"\n')), 8)).toThrow(/frontchannel_logout_session_required/);
  });

  it('reads challenges as the admin API takes them (factors, per-client overrides), and names the field at fault', () => {
    const challenges = (yaml: string, emailCodes = false) => readBootstrapFile(file('ch.yaml', `tenants:\n  - id: acme\n    challenges: ${yaml}\n`), 8, emailCodes)[0].challenges;
    expect(challenges('{ factors: { totp: required }, clients: { kiosk: { totp: off } } }')).toEqual({ factors: { totp: 'required' }, clients: { kiosk: { totp: 'off' } } });
    expect(challenges('{ factors: { email_otp: optional } }', true)).toEqual({ factors: { email_otp: 'optional' }, clients: {} });
    expect(readBootstrapFile(file('none.yaml', 'tenants: [{ id: acme }]'), 8)[0].challenges).toBeUndefined();
    expect(() => challenges('{ factors: { sms: required } }')).toThrow('ch.yaml: tenants[0].challenges.factors.sms: ');
    expect(() => challenges('{ factors: { totp: always } }')).toThrow(/tenants\[0\]\.challenges\.factors\.totp: .*required, optional, off/);
    expect(() => challenges('{ factors: {}, clients: { web: { totp: maybe } } }')).toThrow('tenants[0].challenges.clients.web.totp: must be one of required, optional, off');
    expect(() => challenges('{ factors: {}, clients: { web: required } }')).toThrow('tenants[0].challenges.clients.web: ');
    expect(() => challenges('{ factors: {}, colour: 1 }')).toThrow('tenants[0].challenges.colour: unknown field');
    expect(() => challenges('{ clients: {} }')).toThrow('tenants[0].challenges.factors: ');
    expect(() => challenges('required')).toThrow('tenants[0].challenges: must be a mapping');
    // E-mail codes only where the server can send them, as through the admin API.
    expect(() => challenges('{ factors: { email_otp: required } }')).toThrow(/tenants\[0\]\.challenges\.email_otp: cannot be enabled: this server has no SMTP_URL/);
  });

  it('refuses a client id that a route of the admin API shadows, naming the field', () => {
    expect(() => readBootstrapFile(file('reserved.yaml', 'tenants: [{ id: acme, clients: [{ client_id: edge-certificate, grant_types: [client_credentials], client_secret: "0123456789012345678901234567890123" }] }]'), 8)).toThrow(
      'reserved.yaml: tenants[0].clients[0].client_id: client_id edge-certificate is reserved',
    );
  });

  it('says when the file cannot be read', () => {
    expect(() => readBootstrapFile(join(dir, 'missing.yaml'), 8)).toThrow(/missing\.yaml: cannot be read/);
  });
});
